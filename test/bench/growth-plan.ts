/**
 * Section I's work: credspec i used by service account floor(i / 10), so pairs equal credspecs; a fixed number of
 * reviews per step in a seeded order, so calls that follow the pairs, not the reviews, show as such.
 */
import type { KubeObject } from "../../infra/local/index.ts";
import { binding, useCredSpecs } from "../support/rbac.ts";
import { benchCredSpec, credSpecObject } from "./bench-pods.ts";

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
    { apiVersion: "v1", kind: "Namespace", metadata: { name: GROWTH_NAMESPACE } },
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
