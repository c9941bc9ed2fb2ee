import type { FunctionName } from "../shared/config.ts";

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
