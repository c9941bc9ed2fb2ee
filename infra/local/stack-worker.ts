/**
 * One function as its Cloudflare Worker build: wrangler's bundle for the function's environment
 * (`wrangler deploy --dry-run --env <fn> --outdir`), served by workerd through Miniflare over HTTPS
 * in a process of its own (worker-host.ts). Workers cannot run exec plugins: the KUBECONFIG secret's
 * user has no credential, and the Worker mints its own short-lived JWTs (JWT_* bindings) that the API
 * server's JWT authenticator trusts (jwt-issuer-server.ts). The Worker reaches the API server through
 * the front proxy (front-proxy.ts), the only server whose CA it trusts, as in production.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { stringify } from "yaml";
import { buildWorkerBundle, WRANGLER_OFFLINE_ENV } from "../build/cloudflare/bundle-size.ts";
import { REPO_ROOT } from "../build/repo-root.ts";
import type { LocalClusterInfo } from "./cluster.ts";
import type { FrontProxy } from "./front-proxy.ts";
import { JWT_ALG, jwtKeyId, jwtSubject } from "./jwt-issuer-server.ts";
import { nodeBinary } from "../build/tools/node-binary.ts";
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
 * The KUBECONFIG secret: the front's URL and a user without a credential (the JWT source supplies it). No CA:
 * Workers ignore it (their fetch trusts public CAs only).
 */
export function workerKubeconfig(server: string, fn: FunctionName): string {
  const name = `gmsa-${fn}`;
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "local", cluster: { server } }],
    users: [{ name, user: {} }],
    contexts: [{ name, context: { cluster: "local", user: name } }],
    "current-context": name,
  });
}

/** The JWT_* bindings of `fn`: its own key (published by the local issuer), subject and the cluster's audience. */
export async function workerJwtBindings(cluster: LocalClusterInfo, fn: FunctionName): Promise<Record<string, string>> {
  const privateKey = await readFile(cluster.jwt.keyFiles[fn], "utf8");
  return {
    JWT_PRIVATE_KEY: privateKey,
    JWT_ALG,
    JWT_KEY_ID: await jwtKeyId(privateKey),
    JWT_ISSUER: cluster.jwt.issuer,
    JWT_SUBJECT: jwtSubject(fn),
    JWT_AUDIENCE: cluster.jwt.audience,
  };
}

/**
 * Starts worker-host.ts for an already built bundle on a free loopback port. Does not wait for it:
 * the caller polls `/healthz` (see stack.ts).
 */
export async function startWorkerFunction(
  launch: FunctionLaunch,
  scriptPath: string,
  front: FrontProxy,
): Promise<StartedFunction> {
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
    // The front's CA only: the Worker cannot reach the API server but through the front.
    outboundCaFile: front.caFile,
    // The secrets `wrangler secret put --env <fn>` would set, then the caller's overrides.
    bindings: {
      KUBECONFIG: workerKubeconfig(front.url, fn),
      ...(await workerJwtBindings(cluster, fn)),
      CALLER_AUTH_TOKENS: launch.callerToken,
      ...launch.env,
    },
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
