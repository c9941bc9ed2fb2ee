/**
 * One function as its Cloudflare Worker build: wrangler's bundle for the function's environment
 * (`wrangler deploy --dry-run --env <fn> --outdir`), served by workerd through Miniflare over HTTPS
 * in a process of its own (worker-host.ts). Workers cannot run exec plugins, so the KUBECONFIG
 * secret holds a static token minted by TokenRequest for the function's service account.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { stringify } from "yaml";
import { EXEC_API_V1 } from "../../shared/credentials/exec-config.ts";
import { buildWorkerBundle, WRANGLER_OFFLINE_ENV } from "../cloudflare/bundle-size.ts";
import { REPO_ROOT } from "../repo-root.ts";
import type { LocalClusterInfo } from "./cluster.ts";
import { FUNCTIONS_NAMESPACE, loadMinterEndpoint } from "./exec-plugin.ts";
import { functionServiceAccount, mintExecCredential } from "./function-tokens.ts";
import { nodeBinary } from "./node-binary.ts";
import { freePort, startProcess } from "./processes.ts";
import type { FunctionName } from "../../shared/config/index.ts";
import { inheritedEnv, type FunctionLaunch, type StartedFunction } from "./stack-common.ts";
import type { WorkerHostConfig } from "./worker-host.ts";

const WORKER_HOST = fileURLToPath(new URL("./worker-host.ts", import.meta.url));

/**
 * The environment of wrangler and worker-host.ts: offline, and with their debug logs and temporary
 * files (Miniflare's `miniflare-*` folders) in the stack's folder, so that nothing outlives `stop()`
 * even when a process is killed before it can clean up.
 */
async function workerToolEnv(dir: string): Promise<NodeJS.ProcessEnv> {
  const tmp = join(dir, "tmp");
  await mkdir(tmp, { recursive: true });
  return { ...inheritedEnv(), ...WRANGLER_OFFLINE_ENV, WRANGLER_LOG_PATH: join(dir, "wrangler-logs"), TMPDIR: tmp };
}

/**
 * Bundles the function's wrangler environment into `<dir>/bundle-<fn>/index.js`, as `wrangler deploy`
 * would upload it (about 4 s). wrangler's debug logs go to `dir` too.
 * @returns the bundle's entry path.
 * @throws Error with wrangler's output when bundling fails.
 */
export async function bundleWorker(dir: string, fn: FunctionName): Promise<string> {
  return buildWorkerBundle(fn, join(dir, `bundle-${fn}`), { env: await workerToolEnv(dir) });
}

/**
 * The KUBECONFIG secret: the API server and a token for `gmsa-<fn>` minted with TokenRequest by the
 * local minter (valid one hour, revocable like the exec plugin's). No CA: Workers ignore it (their
 * fetch trusts public CAs only); worker-host.ts trusts the local CA on the Worker's behalf.
 */
export async function workerKubeconfig(cluster: LocalClusterInfo, fn: FunctionName): Promise<string> {
  const name = functionServiceAccount(fn);
  const credential = await mintExecCredential({
    minter: await loadMinterEndpoint(cluster.minterKubeconfig),
    serviceAccount: name,
    namespace: FUNCTIONS_NAMESPACE,
    apiVersion: EXEC_API_V1,
  });
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "local", cluster: { server: cluster.server } }],
    users: [{ name, user: { token: credential.status.token } }],
    contexts: [{ name, context: { cluster: "local", user: name } }],
    "current-context": name,
  });
}

/**
 * Starts worker-host.ts for an already built bundle on a free loopback port. Does not wait for it:
 * the caller polls `/healthz` (see stack.ts).
 */
export async function startWorkerFunction(launch: FunctionLaunch, scriptPath: string): Promise<StartedFunction> {
  const { cluster, fn, dir } = launch;
  const port = await freePort();
  const config: WorkerHostConfig = {
    env: fn,
    scriptPath,
    wranglerConfigPath: join(REPO_ROOT, "wrangler.toml"),
    host: "127.0.0.1",
    port,
    httpsCertPath: launch.serving.certFile,
    httpsKeyPath: launch.serving.keyFile,
    outboundCaFile: cluster.caFile,
    // The secrets `wrangler secret put --env <fn>` would set, then the caller's overrides.
    bindings: { KUBECONFIG: await workerKubeconfig(cluster, fn), CALLER_AUTH_TOKENS: launch.callerToken, ...launch.env },
  };
  const configFile = join(dir, `${fn}.worker-host.json`);
  await writeFile(configFile, JSON.stringify(config), { mode: 0o600 });
  const env = await workerToolEnv(dir);
  const process = await startProcess(`${fn} (worker)`, nodeBinary(), [WORKER_HOST, configFile], launch.logFile, {
    env,
    cwd: REPO_ROOT,
  });
  return { fn, baseUrl: `https://127.0.0.1:${port}`, process, logFile: launch.logFile };
}
