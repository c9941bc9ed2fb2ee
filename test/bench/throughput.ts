/** Section B: reviews/s, latency, server CPU and API calls per function, pod size and concurrency. */
import type { FunctionsRuntime } from "../../infra/local/index.ts";
import type { FunctionName } from "../../shared/config/index.ts";
import type { ReviewCalls } from "./audit.ts";
import { CONTAINER_COUNTS, type ContainerCount } from "./bench-pods.ts";
import { runLoad, type LoadResult } from "./load.ts";
import { loadOf, readProcessCpuMicros, type MeasuredTarget, type ReviewBodies } from "./measured-target.ts";

/** One row of section B against one server process. */
export interface MeasuredRow {
  fn: FunctionName;
  containers: ContainerCount;
  load: LoadResult;
  /** CPU time of the server process (Node; workerd for the Worker) per review, warm-up included. */
  serverCpuMicrosPerReview: number;
}

export interface ThroughputCell extends MeasuredRow {
  runtime: FunctionsRuntime;
  /** API calls during the cell's timed and warm-up requests. */
  calls: ReviewCalls;
}

export interface ThroughputOptions {
  concurrencies: readonly number[];
  maxRequests: number;
  maxDurationMs: number;
  log: (line: string) => void;
}

/** Section B's rows against `targets`, each pod size and concurrency; `counted` reads what each row caused. */
export async function measureRows<T extends MeasuredRow>(
  targets: readonly MeasuredTarget[],
  bodies: ReviewBodies,
  options: ThroughputOptions,
  counted: (target: MeasuredTarget, row: () => Promise<MeasuredRow>) => Promise<T>,
): Promise<T[]> {
  const rows: T[] = [];
  for (const target of targets) {
    for (const containers of CONTAINER_COUNTS) {
      for (const concurrency of options.concurrencies) {
        const row = await counted(target, async () => {
          const cpuBefore = readProcessCpuMicros(target.pid);
          const { maxRequests, maxDurationMs } = options;
          const load = await runLoad(
            loadOf(target, bodies[target.fn][containers], { concurrency, maxRequests, maxDurationMs }),
          );
          const cpuMicros = readProcessCpuMicros(target.pid) - cpuBefore;
          return {
            fn: target.fn,
            containers,
            load,
            serverCpuMicrosPerReview: cpuMicros / (load.requests + load.warmupRequests),
          };
        });
        const { load } = row;
        options.log(
          `${target.server} ${target.fn} ${containers}c x${concurrency}: ${load.requests} in ${(load.durationMs / 1000).toFixed(1)} s, ` +
            `${load.perSecond.toFixed(0)}/s, p50 ${load.latencyMs.p50.toFixed(2)} ms, p99 ${load.latencyMs.p99.toFixed(2)} ms, ` +
            `server CPU ${row.serverCpuMicrosPerReview.toFixed(0)} µs/review, errors ${load.errors}`,
        );
        rows.push(row);
      }
    }
  }
  return rows;
}
