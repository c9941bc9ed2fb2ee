/** Sections B to F against one runtime of the functions on the bench cluster. */
import { startFunctions, type FunctionsRuntime } from "../../infra/local/index.ts";
import type { FunctionName } from "../../shared/config/index.ts";
import { readProcessMemory, type ProcessMemory } from "../e2e/support/process-memory.ts";
import { functionCalls, openAuditLog, type AuditLog, type ReviewCalls } from "./audit.ts";
import type { BenchCluster } from "./bench-cluster.ts";
import { CONTAINER_COUNTS, distinctCredSpecs, type ContainerCount } from "./bench-pods.ts";
import { runLoad } from "./load.ts";
import {
  buildReviewBodies,
  loadOf,
  stackTargets,
  stopAfter,
  type MeasuredTarget,
  type ReviewBodies,
} from "./measured-target.ts";
import { benchWebhooksOf, measurePodCreates, type PodCreatePhaseOptions, type PodCreateRounds } from "./pod-create.ts";
import { measureRows, type ThroughputCell, type ThroughputOptions } from "./throughput.ts";

/** Section C: API-server calls of one review, cold then warm, counted in the audit log by the function's identity. */
export interface CallsPerReview {
  runtime: FunctionsRuntime;
  fn: FunctionName;
  containers: ContainerCount;
  /** Distinct credspecs the pod names: the most reads (and access reviews) a cold review may make. */
  distinct: number;
  cold: ReviewCalls;
  warm: ReviewCalls;
}

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

/**
 * Section C. Needs a freshly started stack (no review sent yet) for the cold figures; the two pod sizes name
 * disjoint credspecs, so each size's first review is cold.
 */
async function measureCallsPerReview(
  runtime: FunctionsRuntime,
  targets: readonly MeasuredTarget[],
  audit: AuditLog,
  bodies: ReviewBodies,
): Promise<CallsPerReview[]> {
  /** Sends exactly one review and counts the calls the function made for it. */
  const countOneReview = async (target: MeasuredTarget, body: string): Promise<ReviewCalls> => {
    const offset = await audit.mark();
    const once = { concurrency: 1, maxRequests: 1, maxDurationMs: 30_000, warmupRequests: 0 };
    const result = await runLoad(loadOf(target, body, once));
    if (result.errors > 0) throw new Error(`${runtime} ${target.fn}: one review failed: ${result.firstError ?? ""}`);
    return functionCalls(await audit.countSince(offset), target.fn);
  };
  const rows: CallsPerReview[] = [];
  for (const containers of CONTAINER_COUNTS) {
    for (const target of targets) {
      const cold = await countOneReview(target, bodies[target.fn][containers]);
      const warm = await countOneReview(target, bodies[target.fn][containers]);
      rows.push({ runtime, fn: target.fn, containers, distinct: distinctCredSpecs(containers), cold, warm });
    }
  }
  return rows;
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
  return stopAfter(stack, async () => {
    const targets = await stackTargets(stack, runtime, cluster.caPem);
    const calls = await measureCallsPerReview(runtime, targets, audit, bodies);
    const cells = await measureRows(targets, bodies, options, async (target, row) => {
      const offset = await audit.mark();
      const measured = await row();
      return { ...measured, runtime, calls: functionCalls(await audit.countSince(offset, 100), target.fn) };
    });
    const podCreate = await measurePodCreates(cluster, runtime, await benchWebhooksOf(cluster, stack), options);

    const elapsedSeconds = (performance.now() - started) / 1000;
    const lifetime = options.tokenLifetimeSeconds;
    const execRuns: ExecRuns[] = [];
    const memory: RuntimeFigures["memory"] = [];
    if (runtime === "node") {
      for (const { fn, pid } of targets) {
        const metrics = await stack.metrics(fn);
        const count = (outcome: string) => metrics[`execRuns_${outcome}`] ?? 0;
        execRuns.push({
          fn,
          countFile: stack.execRuns(fn),
          metricsSuccess: count("success"),
          metricsFailed: count("pluginError") + count("notFound") + count("timeout"),
          allowed: 1 + Math.floor(elapsedSeconds / (lifetime - refreshSkewSeconds(lifetime))),
        });
        memory.push({ fn, memory: await readProcessMemory(pid) });
      }
    }
    return { runtime, startMs, calls, cells, podCreate, execRuns, memory, durationMs: performance.now() - started };
  });
}
