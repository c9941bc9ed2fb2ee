/**
 * Section G (issue 12): what one webhook server process costs, ours or the Go reference's: resident memory idle and
 * after each round of reviews, and its own CPU time per warm review (from /proc, so contention does not inflate it).
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { FunctionName } from "../../shared/config/index.ts";
import { readProcessMemory } from "../e2e/support/process-memory.ts";
import { addErrors, runLoad, type ErrorTally } from "./load.ts";
import { loadOf, readProcessCpuMicros, type MeasuredTarget, type ReviewBodies } from "./measured-target.ts";
import { fixed, MIB, mib, printColumns, printTable, type Cell, type Column } from "./table.ts";

/**
 * Rounds (RSS read after each), concurrent senders (a keep-alive connection each), untimed reviews before the first
 * round so caches and JIT are warm, and the pause before reading RSS so in-flight work and timers settle.
 */
const ROUNDS = 3;
const CONCURRENCY = 16;
const WARMUP_REVIEWS = 500;
const SETTLE_MS = 500;

/** Its errors: answers that were not the expected allowed review (expand: with a patch), over every round. */
export interface FrugalFigures extends ErrorTally {
  server: string;
  fn: FunctionName;
  /** VmRSS before any review (the caller starts the target fresh). */
  idleRssBytes: number;
  /** VmRSS after each round. */
  roundRssBytes: number[];
  /** Peak VmRSS (VmHWM) after the last round. */
  peakRssBytes: number;
  /** The file-backed part of VmRSS (RssFile) at idle and after the last round. */
  idleFileBackedBytes: number;
  fileBackedBytes: number;
  /** Server user+system CPU per review of each round, in µs. */
  roundCpuMicrosPerReview: number[];
  /** Reviews per second of each round (closed loop: contention shows here, not in the CPU figure). */
  roundPerSecond: number[];
  reviews: number;
}

/**
 * Reads every target's idle RSS first (before any of them gets a review), then loads each in turn with its review of
 * the 1-container pod: warm-up, then rounds of `reviewsPerRound` reviews, reading RSS and CPU time after each round.
 * @throws Error when a target's process is gone.
 */
export async function measureFrugal(
  targets: readonly MeasuredTarget[],
  options: { bodies: ReviewBodies; reviewsPerRound: number; log: (line: string) => void },
): Promise<FrugalFigures[]> {
  const idle = await Promise.all(targets.map((t) => readProcessMemory(t.pid)));
  const figures: FrugalFigures[] = [];
  for (const [index, target] of targets.entries()) {
    const body = options.bodies[target.fn][1];
    const load = (maxRequests: number, warmupRequests: number) =>
      runLoad(loadOf(target, body, { concurrency: CONCURRENCY, maxDurationMs: 600_000, maxRequests, warmupRequests }));
    const warm = await load(0, WARMUP_REVIEWS);
    const result: FrugalFigures = {
      server: target.server,
      fn: target.fn,
      idleRssBytes: idle[index]!.rssBytes,
      roundRssBytes: [],
      peakRssBytes: 0,
      idleFileBackedBytes: idle[index]!.fileBackedBytes,
      fileBackedBytes: 0,
      roundCpuMicrosPerReview: [],
      roundPerSecond: [],
      reviews: 0,
      errors: 0,
    };
    addErrors(result, warm);
    for (let round = 0; round < ROUNDS; round++) {
      const cpuBefore = readProcessCpuMicros(target.pid);
      const run = await load(options.reviewsPerRound, 0);
      result.roundCpuMicrosPerReview.push((readProcessCpuMicros(target.pid) - cpuBefore) / run.requests);
      result.roundPerSecond.push(run.perSecond);
      result.reviews += run.requests;
      addErrors(result, run);
      await sleep(SETTLE_MS);
      const memory = await readProcessMemory(target.pid);
      result.roundRssBytes.push(memory.rssBytes);
      result.peakRssBytes = memory.peakRssBytes;
      result.fileBackedBytes = memory.fileBackedBytes;
      options.log(
        `${target.server} ${target.fn} round ${round + 1}: ${run.requests} reviews, ${run.perSecond.toFixed(0)}/s, ` +
          `CPU ${result.roundCpuMicrosPerReview.at(-1)!.toFixed(0)} µs/review, RSS ${mib(memory.rssBytes)} MiB, errors ${run.errors}`,
      );
    }
    figures.push(result);
  }
  return figures;
}

const mean = (values: readonly number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;

/** Mean CPU per review over the rounds, in µs. */
export function cpuMicrosPerReview(f: FrugalFigures): number {
  return mean(f.roundCpuMicrosPerReview);
}

/** Largest RSS after any round. */
export function maxRoundRssBytes(f: FrugalFigures): number {
  return Math.max(...f.roundRssBytes);
}

/**
 * Prints one row per target, then, when more than one server was measured, a side-by-side table per figure with
 * each server's ratio to the first one.
 */
export function printFrugal(figures: readonly FrugalFigures[], reviewsPerRound: number): void {
  const rounds = Math.max(0, ...figures.map((f) => f.roundRssBytes.length));
  printColumns(
    `G. Server memory and CPU per review (HTTPS, concurrency ${CONCURRENCY}, ${rounds} rounds x ${reviewsPerRound} reviews, 1-container pod)`,
    [
      ["server", (f) => f.server],
      ["function", (f) => f.fn],
      ["idle RSS MiB", (f) => mib(f.idleRssBytes)],
      ...Array.from({ length: rounds }, (_, i): Column<FrugalFigures> => [
        `RSS after round ${i + 1} MiB`,
        (f) => (i < f.roundRssBytes.length ? mib(f.roundRssBytes[i]!) : ""),
      ]),
      ["peak RSS MiB", (f) => mib(f.peakRssBytes)],
      ["file-backed MiB, idle → last", (f) => `${mib(f.idleFileBackedBytes)} → ${mib(f.fileBackedBytes)}`],
      [
        "CPU µs/review",
        (f) => `${fixed(cpuMicrosPerReview(f))} (${f.roundCpuMicrosPerReview.map((v) => fixed(v)).join(", ")})`,
      ],
      ["reviews/s", (f) => fixed(mean(f.roundPerSecond))],
      ["errors", (f) => f.errors],
    ],
    figures,
    "Idle: a freshly started server before any review. File-backed: the part of RSS that is pages of the executable and other mapped files (clean, shared, given back under pressure), not the process's own allocations. CPU: the server's user+system time over each round / its reviews (mean, then each round).",
  );
  const servers = [...new Set(figures.map((f) => f.server))];
  if (servers.length < 2) return;
  const figureRows: [string, (f: FrugalFigures) => number][] = [
    ["idle RSS MiB", (f) => f.idleRssBytes / MIB],
    [`RSS after ${rounds} rounds MiB (largest)`, (f) => maxRoundRssBytes(f) / MIB],
    ["CPU µs/review", cpuMicrosPerReview],
  ];
  const rows: Cell[][] = [];
  for (const fn of [...new Set(figures.map((f) => f.fn))]) {
    for (const [name, read] of figureRows) {
      const values = servers.map((s) => figures.find((f) => f.server === s && f.fn === fn));
      const base = values[0] === undefined ? Number.NaN : read(values[0]);
      rows.push([
        fn,
        name,
        ...values.map((v) => (v === undefined ? "-" : fixed(read(v), 1))),
        ...values.slice(1).map((v) => (v === undefined ? "-" : `${fixed(read(v) / base, 2)}x`)),
      ]);
    }
  }
  printTable(
    "G. Side by side",
    ["function", "figure", ...servers, ...servers.slice(1).map((s) => `${s} / ${servers[0]}`)],
    rows,
  );
}
