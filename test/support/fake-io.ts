/** An in-memory CliIo for the cluster commands' tests: captured output, files by path, the environment given. */
import type { CliIo } from "../../cli/io.ts";

export type FakeIo = CliIo & { out: string; err: string };

export function fakeIo(
  options: {
    env?: Record<string, string>;
    files?: Record<string, string>;
    stdin?: string;
    program?: string;
    tty?: boolean;
  } = {},
): FakeIo {
  const io: FakeIo = {
    out: "",
    err: "",
    stdout: (text) => void (io.out += text),
    stderr: (text) => void (io.err += text),
    read: (path) => {
      const text = path === "-" ? (options.stdin ?? "") : options.files?.[path];
      return text === undefined
        ? Promise.reject(Object.assign(new Error(`ENOENT: ${path}`), { code: "ENOENT" }))
        : Promise.resolve(new TextEncoder().encode(text));
    },
    env: options.env ?? {},
    program: options.program ?? "gmsa-webhooks",
    stdoutIsTty: options.tty === true,
  };
  return io;
}
