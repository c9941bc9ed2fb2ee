/** One table per section of the benchmark (Markdown, so RESULTS.md can quote the output). */
import type { InProcessResult } from "./in-process.ts";
import type { RuntimeFigures } from "./runtime-phase.ts";
import { fixed, printTable } from "./table.ts";
import type { BundleSize, WorkerStartup } from "./worker-bundle.ts";

const KIB = 1024;
const MIB = 1024 * 1024;

export function printInProcess(results: readonly InProcessResult[], rounds: number, iterations: number): void {
  printTable(
    `A. In-process cost per review, no I/O (µs; ${rounds} rounds x ${iterations} reviews per row, after warm-up)`,
    ["function", "containers", "p50", "p99", "p99, best round", "mean", "CPU per review"],
    results.map((r) => [
      r.fn,
      r.containers,
      fixed(r.micros.p50),
      fixed(r.micros.p99),
      fixed(r.bestRound.p99),
      fixed(r.micros.mean),
      fixed(r.cpuMicrosPerReview),
    ]),
    "Production app (bearer caller auth, JSON log line written nowhere) over the real client with warm caches; " +
      "each review from a fresh Request to the reply's text. CPU: process user+system time / reviews.",
  );
}

export function printBundles(sizes: readonly BundleSize[]): void {
  printTable(
    "A. Worker bundles (wrangler deploy --dry-run)",
    ["Worker", "raw KiB", "gzip KiB"],
    sizes.map((s) => [s.fn, fixed(s.rawBytes / KIB, 1), fixed(s.gzipBytes / KIB, 1)]),
  );
}

export function printWorkerStartup(startups: readonly WorkerStartup[], runs: number): void {
  printTable(
    `A. Worker start-up in workerd through Miniflare (ms, median and max of ${runs} cold starts)`,
    ["Worker", "workerd ready", "first /healthz (cold isolate)", "second /healthz", "start to first answer"],
    startups.map((s) => [
      s.fn,
      `${fixed(s.readyMs.p50)} (max ${fixed(s.readyMs.max)})`,
      `${fixed(s.firstRequestMs.p50, 1)} (max ${fixed(s.firstRequestMs.max, 1)})`,
      `${fixed(s.secondRequestMs.p50, 1)} (max ${fixed(s.secondRequestMs.max, 1)})`,
      `${fixed(s.totalMs.p50)} (max ${fixed(s.totalMs.max)})`,
    ]),
  );
}

export function printThroughput(phases: readonly RuntimeFigures[], maxRequests: number, maxDurationMs: number): void {
  printTable(
    `B. Reviews per second and latency, sent straight to the functions over HTTPS (${maxRequests} reviews or ${maxDurationMs / 1000} s per row)`,
    [
      "runtime",
      "function",
      "containers",
      "concurrency",
      "reviews",
      "reviews/s",
      "p50 ms",
      "p99 ms",
      "server CPU µs/review",
      "errors",
    ],
    phases.flatMap((p) =>
      p.cells.map((c) => [
        p.runtime,
        c.fn,
        c.containers,
        c.load.concurrency,
        c.load.requests,
        fixed(c.load.perSecond),
        fixed(c.load.latencyMs.p50, 2),
        fixed(c.load.latencyMs.p99, 2),
        fixed(c.serverCpuMicrosPerReview),
        c.load.errors,
      ]),
    ),
    "Client, functions, kube-apiserver and etcd share the same 2 cores. Server CPU: user+system time of the function's " +
      "process (workerd for the Worker) over the row, warm-up included, per review.",
  );
}

export function printCalls(phases: readonly RuntimeFigures[]): void {
  printTable(
    "C. API-server calls per review (audit log, by the function's identity)",
    [
      "runtime",
      "function",
      "containers",
      "distinct credspecs",
      "cold: reads",
      "cold: access reviews",
      "warm: reads",
      "warm: access reviews",
      "under load: calls per 1000 reviews",
    ],
    phases.flatMap((p) =>
      p.calls.map((c) => {
        const cells = p.cells.filter((cell) => cell.fn === c.fn && cell.containers === c.containers);
        const reviews = cells.reduce((sum, cell) => sum + cell.load.requests, 0);
        const calls = cells.reduce((sum, cell) => sum + cell.calls.credspecReads + cell.calls.accessReviews, 0);
        return [
          p.runtime,
          c.fn,
          c.containers,
          c.distinct,
          c.cold.credspecReads,
          c.cold.accessReviews,
          c.warm.credspecReads,
          c.warm.accessReviews,
          fixed((calls * 1000) / Math.max(1, reviews), 2),
        ];
      }),
    ),
    "Under load: all calls during section B's rows for that function and pod (cache TTLs: credspecs 30 s, allowed access 10 s), warm-up requests included in the calls, not in the reviews.",
  );
}

export function printExecRuns(phases: readonly RuntimeFigures[], lifetimeSeconds: number): void {
  const node = phases.find((p) => p.runtime === "node");
  if (node === undefined) return;
  printTable(
    `D. Exec plugin runs over the Node phase (${fixed(node.durationMs / 1000)} s; tokens advertised for ${lifetimeSeconds} s)`,
    [
      "function",
      "runs (plugin count file)",
      "runs ok (/metrics)",
      "runs failed (/metrics)",
      "at most (one per lifetime)",
    ],
    node.execRuns.map((r) => [r.fn, r.countFile, r.metricsSuccess, r.metricsFailed, r.allowed]),
    "The Worker build uses a static token minted once at start: no exec plugin.",
  );
}

export function printMemory(phases: readonly RuntimeFigures[]): void {
  const node = phases.find((p) => p.runtime === "node");
  if (node === undefined) return;
  printTable(
    "E. Node server memory after the run (/proc/<pid>/status)",
    ["function", "VmRSS MiB", "VmHWM (peak) MiB"],
    node.memory.map((m) => [m.fn, fixed(m.memory.rssBytes / MIB, 1), fixed(m.memory.peakRssBytes / MIB, 1)]),
  );
}
