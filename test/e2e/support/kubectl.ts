/**
 * Runs `kubectl` and the kubectl-gmsa plugin. The project builds kube-apiserver and Helm but not kubectl (any recent
 * one works, Debian's too), so a missing kubectl is an error naming how to get it: a test that needs it fails, never
 * skips.
 */
import { execFile } from "node:child_process";
import { symlink } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { REPO_ROOT } from "../../../infra/build/repo-root.ts";

const run = promisify(execFile);

/**
 * `kubectl <args>` (an argument array, never a shell string).
 * @throws Error "kubectl not found on PATH ..." when there is none; kubectl's own failure (exit code, stderr) otherwise.
 */
export async function kubectl(args: string[]): Promise<{ stdout: string; stderr: string }> {
  try {
    return await run("kubectl", args, { maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new Error("kubectl not found on PATH: this test runs it (Debian: apt-get install kubectl)", {
        cause: error,
      });
    }
    throw error;
  }
}

/** Links `dir`/kubectl-gmsa to the CLI, as npm and krew install it (kubectl runs it from PATH); @returns the link. */
export async function linkKubectlGmsa(dir: string): Promise<string> {
  const bin = join(dir, "kubectl-gmsa");
  await symlink(join(REPO_ROOT, "cli/gmsa-webhooks.ts"), bin).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "EEXIST") throw error;
  });
  return bin;
}
