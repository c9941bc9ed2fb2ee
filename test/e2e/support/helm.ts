/**
 * Runs the `helm` built by infra/local/build.ts (the e2e global setup provides its path as `inject("helm")`)
 * against the chart in infra/helm/gmsa-webhooks, with Helm's cache, config and data folders in a temporary
 * folder, so no test reads or writes the developer's own Helm repositories or plugins.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { parseAllDocuments } from "yaml";
import { CHART_DIR } from "../../../infra/helm/chart-files.ts";
import type { KubeObject } from "../../../infra/local/apply.ts";
import { FUNCTIONS_NAMESPACE, functionServiceAccount } from "../../../infra/local/function-tokens.ts";
import { POD_CIDR } from "../../../infra/local/node-config.ts";
import type { FunctionsStack } from "../../../infra/local/stack.ts";

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
  /** `helm template <release> <chart> -n <namespace> -f <values>`: the rendered objects; throws with stderr. */
  template(release: string, namespace: string, values: unknown, extraArgs?: string[]): Promise<KubeObject[]>;
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
  let files = 0;

  async function runHelm(args: string[], options: { values?: unknown; kubeconfig?: string } = {}): Promise<HelmResult> {
    const extra: string[] = [];
    if (options.values !== undefined) {
      // JSON is YAML: the values file holds exactly the object the test built.
      const file = join(home, `values-${++files}.yaml`);
      await writeFile(file, JSON.stringify(options.values));
      extra.push("-f", file);
    }
    if (options.kubeconfig !== undefined) extra.push("--kubeconfig", options.kubeconfig);
    try {
      const { stdout, stderr } = await run(helmPath, [...args, ...extra], { env, maxBuffer: 32 * 1024 * 1024 });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code?: number | string; stdout?: string; stderr?: string };
      if (typeof failed.code !== "number") throw error;
      return { code: failed.code, stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" };
    }
  }

  return {
    run: runHelm,
    async template(release, namespace, values, extraArgs = []) {
      const result = await runHelm(["template", release, CHART_DIR, "-n", namespace, ...extraArgs], { values });
      if (result.code !== 0) throw new Error(`helm template failed (exit ${result.code}): ${result.stderr}`);
      return parseAllDocuments(result.stdout)
        .map((document) => document.toJS() as KubeObject | null)
        .filter((object): object is KubeObject => object !== null);
    },
    close: () => rm(home, { recursive: true, force: true }),
  };
}

/**
 * Values for rendering an in-cluster install (helm template): bearer caller auth with the given token for both
 * functions, certificates generated at install, an image name that no test pulls, and the NetworkPolicy's control
 * plane: the local node's pod network, where the API server's connections to pods come from (infra/local/node-config.ts).
 * Installs on the real node use `localNodeValues` (infra/local/in-cluster.ts).
 */
export function inClusterTestValues(callerToken: string): Record<string, unknown> {
  return {
    image: { repository: "registry.invalid/gmsa-webhooks" },
    callerAuth: { mode: "bearer", expand: callerToken, authorize: callerToken },
    networkPolicy: { controlPlaneCIDRs: [POD_CIDR] },
  };
}

/**
 * Values for an external-mode test install: both webhooks registered by URL at the functions `stack` serves on
 * loopback, trusted through the local cluster's CA, bearer caller auth, each function's own service account bound.
 * `crd` is the chart's default: a CRD already in the cluster that the release does not own is left alone.
 */
export function externalTestValues(caPem: string, stack: FunctionsStack): Record<string, unknown> {
  const subjects = (fn: "expand" | "authorize") => [{ kind: "ServiceAccount", name: functionServiceAccount(fn), namespace: FUNCTIONS_NAMESPACE }];
  return {
    mode: "external",
    callerAuth: { mode: "bearer" },
    external: {
      caBundle: Buffer.from(caPem).toString("base64"),
      expand: { url: stack.expandBaseUrl, subjects: subjects("expand") },
      authorize: { url: stack.authorizeBaseUrl, subjects: subjects("authorize") },
    },
  };
}
