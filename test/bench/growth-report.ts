/** Section I's table (growth.ts). */
import type { GrowthStep, StepMemory } from "./growth.ts";
import { fixed, printColumns, rowsOf, type Cell, type Column } from "./table.ts";

const MIB = 2 ** 20;

function memoryCell(memory: StepMemory): string {
  return `${fixed(memory.idleBytes / MIB, 1)} / ${fixed(memory.afterBytes / MIB, 1)} / ${fixed(memory.peakBytes / MIB, 1)}`;
}

const pairCalls = (s: GrowthStep) =>
  s.calls.expand.credspecReads + s.calls.authorize.credspecReads + s.calls.authorize.accessReviews;

const COLUMNS: readonly Column<GrowthStep>[] = [
  ["credspecs = pairs", (s) => s.credspecs],
  ["service accounts", (s) => s.serviceAccounts],
  ["reviews per function", (s) => s.reviews],
  ["expand reads", (s) => s.calls.expand.credspecReads],
  [
    "authorize reads + access reviews",
    (s) => `${s.calls.authorize.credspecReads} + ${s.calls.authorize.accessReviews}`,
  ],
  ["calls per pair", (s) => fixed(pairCalls(s) / s.credspecs, 2)],
  ["calls per 1,000 reviews", (s) => fixed((pairCalls(s) * 1000) / (2 * s.reviews), 0)],
  ["expand RSS idle / after / peak (MiB)", (s) => memoryCell(s.memory.expand)],
  ["authorize RSS idle / after / peak (MiB)", (s) => memoryCell(s.memory.authorize)],
  ["errors", (s) => s.errors],
  ["s", (s) => fixed(s.durationMs / 1000, 1)],
];

export function growthRows(steps: readonly GrowthStep[]): Cell[][] {
  return rowsOf(COLUMNS, steps);
}

export function printGrowth(steps: readonly GrowthStep[]): void {
  if (steps.length === 0) return;
  printColumns(
    "I. Cost as work grows: API calls and resident memory of the Node servers against the distinct credspecs (and service accounts) pods name",
    COLUMNS,
    steps,
    "The credspecs and their RBAC are in the API server and the functions call it as in production; the reviews go straight to each function " +
      "over HTTPS (concurrency 16), not through pod creates (20,000 creates a step would take many minutes). Each step starts both servers fresh " +
      "(the production bundle and heap limits) with caches at their default bounds (1,000 entries each; TTLs 30 s and 10 s); " +
      "pods name the pairs in a seeded random order, every pair at least once. Container limit: 128 MiB.",
  );
}
