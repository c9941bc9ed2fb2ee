/** Section I's table (growth.ts). */
import type { GrowthStep, StepMemory } from "./growth.ts";
import { fixed, printTable, type Cell } from "./table.ts";

const MIB = 2 ** 20;

function memoryCell(memory: StepMemory): string {
  return `${fixed(memory.idleBytes / MIB, 1)} / ${fixed(memory.afterBytes / MIB, 1)} / ${fixed(memory.peakBytes / MIB, 1)}`;
}

/** One row per step. */
export function growthRows(steps: readonly GrowthStep[]): Cell[][] {
  return steps.map((s) => {
    const calls = s.calls.expand.credspecReads + s.calls.authorize.credspecReads + s.calls.authorize.accessReviews;
    return [
      s.credspecs,
      s.serviceAccounts,
      s.reviews,
      s.calls.expand.credspecReads,
      `${s.calls.authorize.credspecReads} + ${s.calls.authorize.accessReviews}`,
      fixed(calls / s.credspecs, 2),
      fixed((calls * 1000) / (2 * s.reviews), 0),
      memoryCell(s.memory.expand),
      memoryCell(s.memory.authorize),
      s.errors,
      fixed(s.durationMs / 1000, 1),
    ];
  });
}

export function printGrowth(steps: readonly GrowthStep[]): void {
  if (steps.length === 0) return;
  printTable(
    "I. Cost as work grows: API calls and resident memory of the Node servers against the distinct credspecs (and service accounts) pods name",
    [
      "credspecs = pairs",
      "service accounts",
      "reviews per function",
      "expand reads",
      "authorize reads + access reviews",
      "calls per pair",
      "calls per 1,000 reviews",
      "expand RSS idle / after / peak (MiB)",
      "authorize RSS idle / after / peak (MiB)",
      "errors",
      "s",
    ],
    growthRows(steps),
    "The credspecs and their RBAC are in the API server and the functions call it as in production; the reviews go straight to each function " +
      "over HTTPS (concurrency 16), not through pod creates (20,000 creates a step would take many minutes). Each step starts both servers fresh " +
      "(the production bundle and heap limits) with caches at their default bounds (1,000 entries each; TTLs 30 s and 10 s); " +
      "pods name the pairs in a seeded random order, every pair at least once. Container limit: 128 MiB.",
  );
}
