/**
 * The functions on a local cluster, as they are deployed: two processes (Node) or two Workers
 * (workerd under Miniflare), one per function, each with its own identity, served over HTTPS with
 * a certificate of the cluster CA and called by the API server with a bearer token. Used by
 * `npm run dev`, the e2e tests, benchmarks and soak tests.
 *
 * ```ts
 * const cluster = await startCluster({ webhookCallerToken: createCallerToken() });
 * await applyBaseInfra(cluster);
 * const stack = await startFunctions(cluster, { runtime: "node" });
 * await applyFunctionsWebhooks(cluster, stack);   // and waits until the API server calls both
 * // ... create pods with kubeRequest(adminEndpoint(cluster), ...)
 * await stack.stop();
 * ```
 */
import { readFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { issueClusterServingCertificate, type LocalClusterInfo } from "./cluster.ts";
import { kubeRequest, kubeRequestOk, type KubeEndpoint } from "./kube-request.ts";
import { tailFile } from "../build/tools/tail-file.ts";
import { stopProcess, waitFor } from "./processes.ts";
import { FUNCTION_NAMES, type FunctionName } from "../../shared/config/index.ts";
import type { FunctionLaunch, StartedFunction } from "./stack-common.ts";
import { startNodeFunction } from "./stack-node.ts";
import { flatMetrics, parseExposition } from "./stack-metrics.ts";
import type { ParsedFamily } from "./prometheus-parser.ts";
import { startFrontProxy, type FrontProxy } from "./front-proxy.ts";
import { bundleWorker, startWorkerFunction } from "./stack-worker.ts";
import { createTeardown, recordProcessGroup } from "./teardown.ts";

export {
  applyFunctionsWebhooks,
  waitForFunctionsWebhooks,
  type WaitForWebhooksOptions,
  type WebhookTargets,
} from "./stack-webhooks.ts";

/** `node`: functions/node/index.ts; `worker`: the wrangler bundle of each environment in workerd. */
export type FunctionsRuntime = "node" | "worker";

/** Options for {@link startFunctions}. */
export interface StartFunctionsOptions {
  runtime: FunctionsRuntime;
  /**
   * Node only: the lifetime the exec plugin advertises in `expirationTimestamp`, in seconds (the
   * real token lasts at least 600 s). With the default refresh skew (10%, at least 5 s) a 20 s
   * lifetime makes the plugin run again after about 15 s. Default: the token's real lifetime.
   */
  lifetimeSeconds?: number;
  /** Node only: more environment for the exec plugin (its kubeconfig's `exec.env`), e.g. to break it. */
  pluginEnv?: Record<string, string>;
  /** Node only: the script each server runs, e.g. a bundle of functions/node/index.ts; default that file. */
  nodeEntry?: string;
  /** Node only: flags before the script, as `npm start` and the image pass them (V8 flags NODE_OPTIONS refuses). */
  nodeArgs?: readonly string[];
  /** Parent folder of the stack's temporary folder; default the OS temp folder. */
  dir?: string;
  /**
   * Folder for `expand.log` and `authorize.log` (each function's stdout and stderr: one JSON line
   * per review), kept after `stop()`. Default: the stack's folder, removed by `stop()`.
   */
  logTo?: string;
  /**
   * Extra configuration for both functions (env on Node, bindings on Workers), e.g.
   * `{ CREDSPEC_CACHE_TTL_MS: "0" }`; it wins over the stack's own settings.
   */
  env?: Record<string, string>;
  /** How long to wait for each `/healthz`; default 60000. */
  readyTimeoutMs?: number;
}

/** A running stack; `stop()` leaves no process and no file behind (but `logTo`). */
export interface FunctionsStack {
  runtime: FunctionsRuntime;
  /** The stack's temporary folder. */
  dir: string;
  /** `https://127.0.0.1:<port>` serving `/expand` (only expand). */
  expandBaseUrl: string;
  /** `https://127.0.0.1:<port>` serving `/authorize` (only authorize). */
  authorizeBaseUrl: string;
  /** The bearer token both functions accept (the one the API server sends). */
  callerToken: string;
  logFiles: Record<FunctionName, string>;
  /**
   * The function's `GET /metrics` as flat counters (`<fn>_reviews_total`, `execRuns_success`, ...), from the Node
   * server's Prometheus text or the Worker's JSON (./stack-metrics.ts).
   */
  metrics(fn: FunctionName): Promise<Record<string, number>>;
  /** The Node server's `GET /metrics` parsed by Debian's Prometheus parser; undefined on the Worker runtime (JSON). */
  scrape(fn: FunctionName): Promise<ParsedFamily[] | undefined>;
  /**
   * Exec plugin runs for the function so far (ok or not), from the plugin's count file. Always 0 on
   * the Worker runtime, which mints its own JWTs.
   */
  execRuns(fn: FunctionName): number;
  /** Stops both functions (SIGTERM, SIGKILL after 5 s) and removes the stack's folder. Idempotent. */
  stop(): Promise<void>;
}

/** Lines of a count file, 0 when it does not exist yet. */
function countLines(file: string | undefined): number {
  if (file === undefined) return 0;
  try {
    return readFileSync(file, "utf8").split("\n").filter(Boolean).length;
  } catch {
    return 0;
  }
}

/**
 * Starts both functions against `cluster`, which must have been started with a
 * `webhookCallerToken` and have the functions' RBAC applied (applyBaseInfra). Resolves once both
 * answer `/healthz` over HTTPS.
 * @throws TypeError when the cluster has no caller token; Error with the tail of the functions' logs
 *   when one does not start (nothing is left behind).
 */
export async function startFunctions(
  cluster: LocalClusterInfo,
  options: StartFunctionsOptions,
): Promise<FunctionsStack> {
  const callerToken = cluster.webhookCallerToken;
  if (callerToken === undefined) {
    throw new TypeError("startFunctions needs a cluster started with webhookCallerToken (CALLER_AUTH=bearer)");
  }
  const readyTimeoutMs = options.readyTimeoutMs ?? 60_000;
  const dir = await mkdtemp(join(options.dir ?? tmpdir(), `gmsa-functions-${options.runtime}-`));
  const started: StartedFunction[] = [];
  let front: FrontProxy | undefined;
  const { target, teardown } = createTeardown(dir, async () => {
    await Promise.all(started.map((f) => stopProcess(f.process)));
    await front?.close();
  });

  const logFiles = {
    expand: join(options.logTo ?? dir, "expand.log"),
    authorize: join(options.logTo ?? dir, "authorize.log"),
  };
  try {
    const serving = await issueClusterServingCertificate(cluster, ["127.0.0.1", "localhost"]);
    const launch = (fn: FunctionName): FunctionLaunch => ({
      cluster,
      fn,
      dir,
      logFile: logFiles[fn],
      serving,
      callerToken,
      env: options.env ?? {},
    });
    if (options.runtime === "node") {
      for (const fn of FUNCTION_NAMES) {
        const nodeOptions = {
          ...(options.lifetimeSeconds === undefined ? {} : { lifetimeSeconds: options.lifetimeSeconds }),
          ...(options.pluginEnv === undefined ? {} : { pluginEnv: options.pluginEnv }),
          ...(options.nodeEntry === undefined ? {} : { entry: options.nodeEntry }),
          ...(options.nodeArgs === undefined ? {} : { nodeArgs: options.nodeArgs }),
        };
        started.push(await startNodeFunction(launch(fn), nodeOptions));
        recordProcessGroup(target, started.at(-1)!.process.pid);
      }
    } else {
      const bundles = await Promise.all(FUNCTION_NAMES.map((fn) => bundleWorker(dir, fn)));
      front = await startFrontProxy({ dir, upstream: cluster.server, upstreamCaPem: cluster.caPem });
      for (const [index, fn] of FUNCTION_NAMES.entries()) {
        started.push(await startWorkerFunction(launch(fn), bundles[index]!, front));
        recordProcessGroup(target, started.at(-1)!.process.pid);
      }
    }
    await Promise.all(
      started.map((f) =>
        waitFor(`${f.fn} /healthz`, readyTimeoutMs, [f.process], async () => {
          const response = await kubeRequest({ server: f.baseUrl, caPem: cluster.caPem }, "/healthz", {
            timeoutMs: 2000,
          });
          return response.status === 200;
        }),
      ),
    );
  } catch (error) {
    const tails = await Promise.all(
      started.map(async (f) => `--- last lines of ${f.logFile} ---\n${await tailFile(f.logFile)}`),
    );
    await teardown();
    throw new Error(
      `the ${options.runtime} functions did not start: ${(error as Error).message}\n${tails.join("\n")}`,
      {
        cause: error,
      },
    );
  }

  const byName = (fn: FunctionName): StartedFunction => started.find((f) => f.fn === fn)!;
  const endpoint = (fn: FunctionName): KubeEndpoint => ({
    server: byName(fn).baseUrl,
    caPem: cluster.caPem,
    token: callerToken,
  });
  return {
    runtime: options.runtime,
    dir,
    expandBaseUrl: byName("expand").baseUrl,
    authorizeBaseUrl: byName("authorize").baseUrl,
    callerToken,
    logFiles,
    metrics: async (fn) => flatMetrics(fn, await kubeRequestOk(endpoint(fn), "/metrics")),
    scrape: async (fn) => {
      const body = await kubeRequestOk(endpoint(fn), "/metrics");
      return typeof body === "string" ? parseExposition(body) : undefined;
    },
    execRuns: (fn) => countLines(byName(fn).countFile),
    stop: teardown,
  };
}
