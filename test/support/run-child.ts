/** Child processes for tests of the bins and of shell scripts: how they exited and what they printed. */
import { execFile } from "node:child_process";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { REPO_ROOT } from "../../infra/build/repo-root.ts";

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `file` with `args`, `stdin` written to it; never rejects, a failed run is its exit code (-1 when it had none). */
export function runChild(
  file: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; stdin?: string | Uint8Array | undefined; timeout?: number } = {},
): Promise<Run> {
  return new Promise((resolve) => {
    const { stdin, ...rest } = options;
    const child = execFile(file, args, { ...rest, encoding: "utf8" }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === "number" ? err.code : -1, stdout, stderr });
    });
    child.stdin?.end(stdin);
  });
}

/** The CLI's bin as `npx` runs it: cli/gmsa-webhooks.ts with this Node (24 strips the types), from the checkout. */
export function runCli(args: string[], options: { env?: Record<string, string>; stdin?: Uint8Array | undefined } = {}) {
  return runChild(process.execPath, ["cli/gmsa-webhooks.ts", ...args], { cwd: REPO_ROOT, ...options });
}

/** Runs `script` as the guides' shell lines run: `bash -euo pipefail`; rejects when it fails. */
export function runBash(script: string, options: { cwd: string; env?: NodeJS.ProcessEnv }) {
  return promisify(execFile)("bash", ["-euo", "pipefail", "-c", script], options);
}

/** Writes each `name -> sh script` as an executable in `dir/bin`; returns a PATH with that folder first. */
export async function standIns(dir: string, scripts: Record<string, string>, rest = process.env["PATH"] ?? "") {
  const bin = path.join(dir, "bin");
  await mkdir(bin, { recursive: true });
  for (const [name, script] of Object.entries(scripts)) {
    await writeFile(path.join(bin, name), script);
    await chmod(path.join(bin, name), 0o755);
  }
  return `${bin}:${rest}`;
}
