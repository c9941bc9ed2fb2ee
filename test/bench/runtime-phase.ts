/** Sections B to F against one runtime of the functions on the bench cluster. */
import { startFunctions, type FunctionsRuntime } from "../../infra/local/index.ts";
import { FUNCTION_NAMES, type FunctionName } from "../../shared/config/index.ts";
import { findServerPid, readProcessMemory, type ProcessMemory } from "../e2e/support/process-memory.ts";
import { measureCallsPerReview, type CallsPerReview } from "./api-calls.ts";
import { openAuditLog } from "./audit.ts";
import type { BenchCluster } from "./bench-cluster.ts";
import { benchWebhooksOf, measurePodCreates, type PodCreatePhaseOptions, type PodCreateRounds } from "./pod-create.ts";
import { buildReviewBodies } from "./reviews.ts";
import { measureThroughput, type ThroughputCell, type ThroughputOptions } from "./throughput.ts";

export interface ExecRuns {
  fn: FunctionName;
  /** Lines in the plugin's count file. */
  countFile: number;
  /** The function's own counters (`execRuns_*` in /metrics). */
  metricsSuccess: number;
  metricsFailed: number;
  /** One run per token lifetime (less the refresh skew) over the phase: the most runs allowed. */
  allowed: number;
}

export interface RuntimeFigures {
  runtime: FunctionsRuntime;
  /** startFunctions until both answer /healthz over HTTPS. */
  startMs: number;
  calls: CallsPerReview[];
  cells: ThroughputCell[];
  /** Section F: rounds of creates alternating between no webhook, the floor and these functions. */
  podCreate: PodCreateRounds;
  /** Node only. */
  execRuns: ExecRuns[];
  /** Node only: each function's server process after the phase. */
  memory: { fn: FunctionName; memory: ProcessMemory }[];
  durationMs: number;
}

export interface RuntimePhaseOptions extends ThroughputOptions, PodCreatePhaseOptions {
  /** Advertised exec-plugin token lifetime on Node, in seconds, so that tokens are refreshed under load. */
  tokenLifetimeSeconds: number;
}

/** The refresh skew the functions apply by default (10% of the lifetime, 5 to 60 s, at most half). */
function refreshSkewSeconds(lifetimeSeconds: number): number {
  return Math.min(lifetimeSeconds / 2, Math.max(5, Math.min(60, lifetimeSeconds / 10)));
}

export async function benchRuntime(
  bench: BenchCluster,
  runtime: FunctionsRuntime,
  options: RuntimePhaseOptions,
): Promise<RuntimeFigures> {
  const { cluster } = bench;
  const audit = openAuditLog(cluster.auditLogFile);
  const bodies = buildReviewBodies(bench.credspecs);
  const started = performance.now();
  const stack = await startFunctions(cluster, {
    runtime,
    ...(runtime === "node" ? { lifetimeSeconds: options.tokenLifetimeSeconds } : {}),
  });
  const startMs = performance.now() - started;
  options.log(`${runtime} functions up in ${(startMs / 1000).toFixed(1)} s`);
  try {
    const calls = await measureCallsPerReview(stack, cluster.caPem, audit, bodies);
    const cells = await measureThroughput(stack, cluster.caPem, audit, bodies, options);
    const podCreate = await measurePodCreates(cluster, runtime, await benchWebhooksOf(cluster, stack), options);

    const elapsedSeconds = (performance.now() - started) / 1000;
    const lifetime = options.tokenLifetimeSeconds;
    const execRuns: ExecRuns[] = [];
    const memory: RuntimeFigures["memory"] = [];
    if (runtime === "node") {
      for (const fn of FUNCTION_NAMES) {
        const metrics = await stack.metrics(fn);
        const failed =
          (metrics["execRuns_pluginError"] ?? 0) +
          (metrics["execRuns_notFound"] ?? 0) +
          (metrics["execRuns_timeout"] ?? 0);
        execRuns.push({
          fn,
          countFile: stack.execRuns(fn),
          metricsSuccess: metrics["execRuns_success"] ?? 0,
          metricsFailed: failed,
          allowed: 1 + Math.floor(elapsedSeconds / (lifetime - refreshSkewSeconds(lifetime))),
        });
        const pid = await findServerPid(fn === "expand" ? stack.expandBaseUrl : stack.authorizeBaseUrl);
        memory.push({ fn, memory: await readProcessMemory(pid) });
      }
    }
    return { runtime, startMs, calls, cells, podCreate, execRuns, memory, durationMs: performance.now() - started };
  } finally {
    await stack.stop();
  }
}
