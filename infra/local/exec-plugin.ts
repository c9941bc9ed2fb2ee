/**
 * The client-go exec credential plugin the functions authenticate with on a local cluster
 * (KEP-541). Run as `node exec-plugin.ts --service-account gmsa-expand [--namespace gmsa-webhooks]`
 * from a kubeconfig written by {@link writeFunctionKubeconfig}; prints one ExecCredential.
 *
 * Each run mints a real service-account token with the TokenRequest API, bound to a fresh Secret
 * so that deleting the Secret revokes the token ({@link revokeFunctionTokens}). It authenticates
 * as the least-privilege minter (token-minter.yaml) named by `GMSA_MINTER_KUBECONFIG`.
 *
 * Environment:
 * - `GMSA_MINTER_KUBECONFIG` (required): kubeconfig of the minter (token user).
 * - `GMSA_EXEC_PLUGIN_LIFETIME_SECONDS`: advertise this lifetime in `expirationTimestamp` when it
 *   is shorter than the token's real one (TokenRequest's minimum is 600 s), so tests can see
 *   expiry make the client run the plugin again.
 * - `GMSA_EXEC_PLUGIN_COUNT_FILE`: append one line per run (`<time> <service account> ok|error`).
 * - `KUBERNETES_EXEC_INFO`: set by the client; its `apiVersion` is echoed (default v1).
 */
import { appendFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { parse } from "yaml";
import { EXEC_API_V1, EXEC_API_VERSIONS } from "../../shared/credentials/exec-config.ts";
// Type-only: the plugin runs on every token refresh, so it loads no cluster start-up code.
import type { LocalClusterInfo } from "./cluster.ts";
import { FUNCTIONS_NAMESPACE, mintExecCredential } from "./function-tokens.ts";
import type { KubeEndpoint } from "./kube-request.ts";
import { writeKubeconfig } from "./kubeconfig.ts";
import { nodeBinary } from "../build/tools/node-binary.ts";

export { revokeFunctionTokens, type ExecCredential } from "./function-tokens.ts";
export { FUNCTIONS_NAMESPACE };

/** Absolute path of this script, for kubeconfig `args`. */
export const EXEC_PLUGIN_PATH = fileURLToPath(import.meta.url);

/** Options for {@link writeFunctionKubeconfig}. */
export interface FunctionKubeconfigOptions {
  /** `gmsa-expand` or `gmsa-authorize` (the minter may mint for no other). */
  serviceAccount: string;
  /** Where to write the kubeconfig. */
  path: string;
  /** Advertised token lifetime in seconds (see `GMSA_EXEC_PLUGIN_LIFETIME_SECONDS`). */
  lifetimeSeconds?: number | undefined;
  /** File that gets one line per plugin run (see `GMSA_EXEC_PLUGIN_COUNT_FILE`). */
  countFile?: string;
  /** More `exec.env` entries, after ours (a test breaks the plugin with a minter kubeconfig that is not there). */
  env?: Record<string, string>;
}

/**
 * Writes a kubeconfig for one function whose user is this exec plugin, run by Node 24 (this
 * process's binary, see {@link nodeBinary}), with `interactiveMode: Never` and `provideClusterInfo`.
 * The minter's credential stays in its own file; this kubeconfig holds no secret.
 * @returns `options.path`.
 */
export async function writeFunctionKubeconfig(
  cluster: LocalClusterInfo,
  options: FunctionKubeconfigOptions,
): Promise<string> {
  const env = [{ name: "GMSA_MINTER_KUBECONFIG", value: cluster.minterKubeconfig }];
  if (options.lifetimeSeconds !== undefined) {
    env.push({ name: "GMSA_EXEC_PLUGIN_LIFETIME_SECONDS", value: String(options.lifetimeSeconds) });
  }
  if (options.countFile !== undefined) env.push({ name: "GMSA_EXEC_PLUGIN_COUNT_FILE", value: options.countFile });
  for (const [name, value] of Object.entries(options.env ?? {})) env.push({ name, value });
  return writeKubeconfig({
    path: options.path,
    server: cluster.server,
    caPem: cluster.caPem,
    name: options.serviceAccount,
    user: {
      exec: {
        apiVersion: EXEC_API_V1,
        command: nodeBinary(),
        args: [EXEC_PLUGIN_PATH, "--service-account", options.serviceAccount, "--namespace", FUNCTIONS_NAMESPACE],
        env,
        interactiveMode: "Never",
        provideClusterInfo: true,
        installHint: "Node 24 comes with the project: run `npm ci` in the repository.",
      },
    },
  });
}

/**
 * Reads server, CA and token from the current context of a token kubeconfig (the minter's).
 * @throws Error when the current context lacks a server, certificate-authority-data or token.
 */
export async function loadMinterEndpoint(path: string): Promise<KubeEndpoint> {
  type Named<T> = { name: string } & T;
  const config = parse(await readFile(path, "utf8")) as {
    "current-context"?: string;
    contexts?: Named<{ context: { cluster: string; user: string } }>[];
    clusters?: Named<{ cluster: { server: string; "certificate-authority-data"?: string } }>[];
    users?: Named<{ user: { token?: string } }>[];
  };
  const context = config.contexts?.find((c) => c.name === config["current-context"])?.context;
  const cluster = config.clusters?.find((c) => c.name === context?.cluster)?.cluster;
  const token = config.users?.find((u) => u.name === context?.user)?.user.token;
  const caData = cluster?.["certificate-authority-data"];
  if (!cluster || !token || !caData) {
    throw new Error(`${path}: expected a current context with a server, certificate-authority-data and a token`);
  }
  return { server: cluster.server, caPem: Buffer.from(caData, "base64").toString("utf8"), token };
}

function requestedApiVersion(execInfo: string | undefined): string {
  if (!execInfo) return EXEC_API_V1;
  const requested = (JSON.parse(execInfo) as { apiVersion?: string }).apiVersion ?? EXEC_API_V1;
  const apiVersion = EXEC_API_VERSIONS.find((version) => version === requested);
  if (apiVersion === undefined) throw new Error(`unsupported ExecCredential ${requested}`);
  return apiVersion;
}

function parseLifetime(value: string | undefined): number | undefined {
  if (value === undefined || value === "") return undefined;
  const seconds = Number(value);
  if (!Number.isInteger(seconds) || seconds <= 0) {
    throw new Error(`GMSA_EXEC_PLUGIN_LIFETIME_SECONDS must be a positive integer, got ${value}`);
  }
  return seconds;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      "service-account": { type: "string" },
      namespace: { type: "string", default: FUNCTIONS_NAMESPACE },
    },
  });
  const serviceAccount = values["service-account"];
  const countFile = process.env.GMSA_EXEC_PLUGIN_COUNT_FILE;
  try {
    if (!serviceAccount) throw new Error("usage: node exec-plugin.ts --service-account <name> [--namespace <ns>]");
    const minterKubeconfig = process.env.GMSA_MINTER_KUBECONFIG;
    if (!minterKubeconfig) throw new Error("GMSA_MINTER_KUBECONFIG is not set");
    const credential = await mintExecCredential({
      minter: await loadMinterEndpoint(minterKubeconfig),
      serviceAccount,
      namespace: values.namespace,
      apiVersion: requestedApiVersion(process.env.KUBERNETES_EXEC_INFO),
      lifetimeSeconds: parseLifetime(process.env.GMSA_EXEC_PLUGIN_LIFETIME_SECONDS),
    });
    if (countFile) appendFileSync(countFile, `${new Date().toISOString()} ${serviceAccount} ok\n`);
    process.stdout.write(`${JSON.stringify(credential)}\n`);
  } catch (error) {
    if (countFile) appendFileSync(countFile, `${new Date().toISOString()} ${serviceAccount ?? "-"} error\n`);
    process.stderr.write(`gmsa exec plugin: ${(error as Error).message}\n`);
    process.exitCode = 1;
  }
}

if (import.meta.main) await main();
