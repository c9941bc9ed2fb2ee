/** A child process run to its end, for tests of the bins: how it exited and what it printed. */
import { execFile } from "node:child_process";

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `file` with `args`; never rejects, a failed run is its exit code (-1 when it had none, e.g. killed). */
export function runChild(
  file: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; stdin?: Uint8Array | undefined; timeout?: number } = {},
): Promise<Run> {
  return new Promise((resolve) => {
    const { stdin, ...rest } = options;
    const child = execFile(file, args, { ...rest, encoding: "utf8" }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === "number" ? err.code : -1, stdout, stderr });
    });
    child.stdin?.end(stdin);
  });
}
