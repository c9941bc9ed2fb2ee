/**
 * Section I's work and its table (growth.ts measures): credspec i used by service account floor(i / 10), so pairs
 * equal credspecs; a fixed number of reviews per step in a seeded order, so calls that follow the pairs, not the
 * reviews, show as such.
 */
import type { KubeObject } from "../../infra/local/index.ts";
import { namespace } from "../e2e/support/core-objects.ts";
import { binding, useCredSpecs } from "../support/rbac.ts";
import { benchCredSpec, credSpecObject } from "./bench-pods.ts";
import type { GrowthStep, StepMemory } from "./growth.ts";
import { fixed, mib, printColumns, rowsOf, type Cell, type Column } from "./table.ts";

export const GROWTH_NAMESPACE = "gmsa-growth";
export const GROWTH_STEPS = [10, 100, 1000, 10_000] as const;
export const CREDSPECS_PER_SERVICE_ACCOUNT = 10;

export function growthCredSpecName(i: number): string {
  return `gmsa-growth-${i}`;
}

export function growthServiceAccount(i: number): string {
  return `growth-${Math.floor(i / CREDSPECS_PER_SERVICE_ACCOUNT)}`;
}

export function growthServiceAccounts(credspecs: number): number {
  return Math.ceil(credspecs / CREDSPECS_PER_SERVICE_ACCOUNT);
}

export function growthCredSpec(i: number): Record<string, unknown> {
  return benchCredSpec(1000 + i);
}

export function growthCredSpecObject(i: number): KubeObject {
  return credSpecObject(growthCredSpecName(i), growthCredSpec(i));
}

/**
 * The namespace and the grant of `use` on the first `credspecs` credspecs to its service accounts (by their group,
 * which the functions' access reviews carry: shared/kube/access-reviews.ts).
 */
export function growthGrantObjects(credspecs: number): KubeObject[] {
  return [
    namespace(GROWTH_NAMESPACE),
    useCredSpecs(
      "gmsa-growth-use",
      Array.from({ length: credspecs }, (_, i) => growthCredSpecName(i)),
    ),
    binding(
      "gmsa-growth-use",
      { kind: "ClusterRole", name: "gmsa-growth-use" },
      [{ apiGroup: "rbac.authorization.k8s.io", kind: "Group", name: `system:serviceaccounts:${GROWTH_NAMESPACE}` }],
      GROWTH_NAMESPACE,
    ),
  ];
}

/**
 * `count` pair indices below `credspecs` in a seeded pseudo-random order (mulberry32), every pair at least once when
 * `count >= credspecs`: the first `credspecs` are a shuffle of all of them, the rest drawn at random.
 */
export function growthPairOrder(credspecs: number, count: number, seed = 26): Uint32Array {
  let state = seed >>> 0;
  const random = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  const order = new Uint32Array(count);
  const first = Math.min(credspecs, count);
  const all = Uint32Array.from({ length: credspecs }, (_, i) => i);
  for (let i = credspecs - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [all[i], all[j]] = [all[j]!, all[i]!];
  }
  order.set(all.subarray(0, first));
  for (let i = first; i < count; i++) order[i] = Math.floor(random() * credspecs);
  return order;
}

function memoryCell(memory: StepMemory): string {
  return `${mib(memory.idleBytes)} / ${mib(memory.afterBytes)} / ${mib(memory.peakBytes)}`;
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
