/** Section B: reviews/s, latency, server CPU and API calls per function, pod size and concurrency. */
import type { FunctionsRuntime, FunctionsStack } from "../../infra/local/index.ts";
import { FUNCTION_NAMES, type FunctionName } from "../../shared/config/index.ts";
import { findServerPid } from "../e2e/support/process-memory.ts";
import { functionCalls, type AuditLog } from "./audit.ts";
import { CONTAINER_COUNTS, type ContainerCount } from "./bench-pods.ts";
import { runLoad, type LoadResult } from "./load.ts";
import { readProcessCpuMicros } from "./process-cpu.ts";
import type { ReviewCalls } from "./api-calls.ts";
import { reviewLoad, type ReviewBodies } from "./reviews.ts";

export interface ThroughputCell {
  runtime: FunctionsRuntime;
  fn: FunctionName;
  containers: ContainerCount;
  load: LoadResult;
  /** API calls during the cell's timed and warm-up requests. */
  calls: ReviewCalls;
  /** CPU time of the function's server process (Node; workerd for the Worker) per review, warm-up included. */
  serverCpuMicrosPerReview: number;
}

export interface ThroughputOptions {
  concurrencies: readonly number[];
  maxRequests: number;
  maxDurationMs: number;
  log: (line: string) => void;
}

export async function measureThroughput(
  stack: FunctionsStack,
  caPem: string,
  audit: AuditLog,
  bodies: ReviewBodies,
  options: ThroughputOptions,
): Promise<ThroughputCell[]> {
  const cells: ThroughputCell[] = [];
  const pids = {
    expand: await findServerPid(stack.expandBaseUrl),
    authorize: await findServerPid(stack.authorizeBaseUrl),
  };
  for (const fn of FUNCTION_NAMES) {
    for (const containers of CONTAINER_COUNTS) {
      for (const concurrency of options.concurrencies) {
        const offset = await audit.mark();
        const cpuBefore = readProcessCpuMicros(pids[fn]);
        const load = await runLoad({
          ...reviewLoad(stack, caPem, fn, bodies[fn][containers]),
          concurrency,
          maxRequests: options.maxRequests,
          maxDurationMs: options.maxDurationMs,
        });
        const serverCpuMicrosPerReview =
          (readProcessCpuMicros(pids[fn]) - cpuBefore) / (load.requests + load.warmupRequests);
        const calls = functionCalls(await audit.countSince(offset, 100), fn);
        cells.push({ runtime: stack.runtime, fn, containers, load, calls, serverCpuMicrosPerReview });
        options.log(
          `${stack.runtime} ${fn} ${containers}c x${concurrency}: ${load.requests} in ${(load.durationMs / 1000).toFixed(1)} s, ` +
            `${load.perSecond.toFixed(0)}/s, p50 ${load.latencyMs.p50.toFixed(2)} ms, p99 ${load.latencyMs.p99.toFixed(2)} ms, ` +
            `server CPU ${serverCpuMicrosPerReview.toFixed(0)} µs/review, errors ${load.errors}`,
        );
      }
    }
  }
  return cells;
}
