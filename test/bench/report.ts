/** One table per section of the benchmark (Markdown, so RESULTS.md can quote the output). */
import type { InProcessResult } from "./in-process.ts";
import type { RuntimeFigures } from "./runtime-phase.ts";
import { fixed, kib, mib, p50Max, printColumns, printTable } from "./table.ts";
import type { BundleSize, WorkerStartup } from "./worker-bundle.ts";

export function printInProcess(results: readonly InProcessResult[], rounds: number, iterations: number): void {
  printColumns(
    `A. In-process cost per review, no I/O (µs; ${rounds} rounds x ${iterations} reviews per row, after warm-up)`,
    [
      ["function", (r) => r.fn],
      ["containers", (r) => r.containers],
      ["p50", (r) => fixed(r.micros.p50)],
      ["p99", (r) => fixed(r.micros.p99)],
      ["p99, best round", (r) => fixed(r.bestRound.p99)],
      ["mean", (r) => fixed(r.micros.mean)],
      ["CPU per review", (r) => fixed(r.cpuMicrosPerReview)],
    ],
    results,
    "Production app (bearer caller auth, JSON log line written nowhere) over the real client with warm caches; " +
      "each review from a fresh Request to the reply's text. CPU: process user+system time / reviews.",
  );
}

export function printBundles(sizes: readonly BundleSize[]): void {
  printTable(
    "A. Worker bundles (wrangler deploy --dry-run)",
    ["Worker", "raw KiB", "gzip KiB"],
    sizes.map((s) => [s.fn, kib(s.rawBytes), kib(s.gzipBytes)]),
  );
}

export function printWorkerStartup(startups: readonly WorkerStartup[], runs: number): void {
  printTable(
    `A. Worker start-up in workerd through Miniflare (ms, median and max of ${runs} cold starts)`,
    ["Worker", "workerd ready", "first /healthz (cold isolate)", "second /healthz", "start to first answer"],
    startups.map((s) => [
      s.fn,
      p50Max(s.readyMs),
      p50Max(s.firstRequestMs, 1),
      p50Max(s.secondRequestMs, 1),
      p50Max(s.totalMs),
    ]),
  );
}

export function printThroughput(phases: readonly RuntimeFigures[], maxRequests: number, maxDurationMs: number): void {
  printColumns(
    `B. Reviews per second and latency, sent straight to the functions over HTTPS (${maxRequests} reviews or ${maxDurationMs / 1000} s per row)`,
    [
      ["runtime", (c) => c.runtime],
      ["function", (c) => c.fn],
      ["containers", (c) => c.containers],
      ["concurrency", (c) => c.load.concurrency],
      ["reviews", (c) => c.load.requests],
      ["reviews/s", (c) => fixed(c.load.perSecond)],
      ["p50 ms", (c) => fixed(c.load.latencyMs.p50, 2)],
      ["p99 ms", (c) => fixed(c.load.latencyMs.p99, 2)],
      ["server CPU µs/review", (c) => fixed(c.serverCpuMicrosPerReview)],
      ["errors", (c) => c.load.errors],
    ],
    phases.flatMap((p) => p.cells),
    "Client, functions, kube-apiserver and etcd share the same 2 cores. Server CPU: user+system time of the function's " +
      "process (workerd for the Worker) over the row, warm-up included, per review.",
  );
}

export function printCalls(phases: readonly RuntimeFigures[]): void {
  printColumns(
    "C. API-server calls per review (audit log, by the function's identity)",
    [
      ["runtime", ({ c }) => c.runtime],
      ["function", ({ c }) => c.fn],
      ["containers", ({ c }) => c.containers],
      ["distinct credspecs", ({ c }) => c.distinct],
      ["cold: reads", ({ c }) => c.cold.credspecReads],
      ["cold: access reviews", ({ c }) => c.cold.accessReviews],
      ["warm: reads", ({ c }) => c.warm.credspecReads],
      ["warm: access reviews", ({ c }) => c.warm.accessReviews],
      [
        "under load: calls per 1000 reviews",
        ({ c, p }) => {
          const cells = p.cells.filter((cell) => cell.fn === c.fn && cell.containers === c.containers);
          const reviews = cells.reduce((sum, cell) => sum + cell.load.requests, 0);
          const calls = cells.reduce((sum, cell) => sum + cell.calls.credspecReads + cell.calls.accessReviews, 0);
          return fixed((calls * 1000) / Math.max(1, reviews), 2);
        },
      ],
    ],
    phases.flatMap((p) => p.calls.map((c) => ({ c, p }))),
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
    node.memory.map((m) => [m.fn, mib(m.memory.rssBytes), mib(m.memory.peakRssBytes)]),
  );
}
