/** Summaries of latency samples: nearest-rank percentiles over a sorted copy. */

/** Count, median, 99th percentile, mean and maximum of a set of samples, in the samples' unit. */
export interface Summary {
  count: number;
  p50: number;
  p99: number;
  mean: number;
  max: number;
}

/**
 * The nearest-rank `p`-th percentile (0 < p <= 100) of samples sorted ascending: the smallest sample
 * with at least p% of the samples at or below it. NaN for no samples.
 */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export function summarize(samples: ArrayLike<number>): Summary {
  const sorted = Float64Array.from(samples).sort();
  let sum = 0;
  for (const value of sorted) sum += value;
  return {
    count: sorted.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    mean: sorted.length === 0 ? Number.NaN : sum / sorted.length,
    max: sorted.length === 0 ? Number.NaN : sorted[sorted.length - 1]!,
  };
}

/** Each of `keys`' {@link Summary} over `runs`, one record of figures per run. */
export function summarizeEach<K extends string>(
  runs: readonly Record<K, number>[],
  keys: readonly K[],
): Record<K, Summary> {
  return Object.fromEntries(keys.map((key) => [key, summarize(runs.map((run) => run[key]))])) as Record<K, Summary>;
}
