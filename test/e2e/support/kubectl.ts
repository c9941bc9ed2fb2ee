/**
 * Runs the `kubectl` on PATH. The project builds kube-apiserver and Helm but not kubectl (any recent one works,
 * Debian's too), so a missing kubectl is an error naming how to get it: a test that needs it fails, never skips.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

/** What kubectl printed on success. */
export interface KubectlOutput {
  stdout: string;
  stderr: string;
}

/**
 * `kubectl <args>` (an argument array, never a shell string).
 * @throws Error "kubectl not found on PATH ..." when there is none; kubectl's own failure (exit code, stderr) otherwise.
 */
export async function kubectl(args: string[]): Promise<KubectlOutput> {
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
