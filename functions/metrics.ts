import type { FunctionName } from "../shared/config/index.ts";

/** Per-process counters of reviews by function and outcome (for /metrics and tests). */
export interface ReviewCounters {
  record(fn: FunctionName, allowed: boolean, code: number | undefined): void;
  snapshot(): Record<string, number>;
}

export function createReviewCounters(): ReviewCounters {
  const counts = new Map<string, number>();
  return {
    record(fn, allowed, code) {
      for (const key of [`${fn}_reviews_total`, `${fn}_${allowed ? "allowed" : `denied_${code ?? 0}`}_total`]) {
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
    },
    snapshot: () => Object.fromEntries(counts),
  };
}

/** Flattens nested numeric counters (kube client caches, exec plugin runs) into `a_b_c` keys for /metrics. */
export function flattenCounters(value: object, prefix = ""): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, child] of Object.entries(value)) {
    const name = prefix === "" ? key : `${prefix}_${key}`;
    if (typeof child === "number") out[name] = child;
    else if (typeof child === "object" && child !== null) Object.assign(out, flattenCounters(child as object, name));
  }
  return out;
}
