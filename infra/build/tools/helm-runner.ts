/**
 * Runs the project's `helm` (infra/build/tools/go-build.ts builds it) with Helm's cache, config and data folders in a
 * temporary folder of its own, so no run reads or writes the developer's Helm repositories or plugins, and with
 * values given as objects (written as files: JSON is YAML).
 */
import { execFile } from "node:child_process";
import { rmSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** What a helm run printed; `code` is 0 on success. */
export interface HelmResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A helm binary with its own HELM_*_HOME folders; `close()` removes them. */
export interface HelmRunner {
  /** Runs helm with `args` (an argument array, never a shell string); resolves with the exit code too. */
  run(args: string[], options?: { values?: unknown; kubeconfig?: string }): Promise<HelmResult>;
  close(): Promise<void>;
}

/** Creates a {@link HelmRunner} for the binary at `helmPath`. */
export async function createHelmRunner(helmPath: string): Promise<HelmRunner> {
  const home = await mkdtemp(join(tmpdir(), "gmsa-helm-"));
  const env = {
    PATH: process.env["PATH"] ?? "",
    HOME: home,
    HELM_CACHE_HOME: join(home, "cache"),
    HELM_CONFIG_HOME: join(home, "config"),
    HELM_DATA_HOME: join(home, "data"),
  };
  // A signal that ends the process before close() (Ctrl-C while the node starts) still removes the folder.
  const removeHome = (): void => rmSync(home, { recursive: true, force: true });
  process.once("exit", removeHome);
  let files = 0;
  return {
    async run(args, options = {}) {
      const extra: string[] = [];
      let valuesFile: string | undefined;
      if (options.values !== undefined) {
        valuesFile = join(home, `values-${++files}.yaml`);
        // Owner-only, and deleted as soon as helm has read it: the values hold the caller token, and a
        // Ctrl-C between here and close() must not leave it on disk.
        await writeFile(valuesFile, JSON.stringify(options.values), { mode: 0o600 });
        extra.push("-f", valuesFile);
      }
      if (options.kubeconfig !== undefined) extra.push("--kubeconfig", options.kubeconfig);
      try {
        const { stdout, stderr } = await run(helmPath, [...args, ...extra], { env, maxBuffer: 32 * 1024 * 1024 });
        return { code: 0, stdout, stderr };
      } catch (error) {
        const failed = error as { code?: number | string; stdout?: string; stderr?: string };
        if (typeof failed.code !== "number") throw error;
        return { code: failed.code, stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" };
      } finally {
        if (valuesFile !== undefined) await rm(valuesFile, { force: true });
      }
    },
    async close() {
      process.removeListener("exit", removeHome);
      await rm(home, { recursive: true, force: true });
    },
  };
}
