/**
 * Alternating trials for the budget rows that move between runs (issue 36): each is measured three times in one run,
 * ours and the figure it is compared with taking turns (ours, Go's, ours, Go's, ...), and judged on the median, so
 * one slow moment of a shared machine does not decide a row.
 */

/** Trials per noisy budget row. */
export const BUDGET_TRIALS = 3;

/**
 * The median of `values`: the middle one of an odd count, the mean of the two middle ones of an even count; NaN for
 * none. `values` is not changed.
 */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * The median of the trial-by-trial ratios `ours[i] / theirs[i]`: each trial is compared with the one it alternated
 * with, not with the other side's median. NaN when the counts differ or there are none.
 */
export function medianRatio(ours: readonly number[], theirs: readonly number[]): number {
  if (ours.length !== theirs.length) return Number.NaN;
  return median(ours.map((value, i) => value / theirs[i]!));
}

/**
 * Runs `trials` turns of `runs`, one after the other in each turn (for two runs: a, b, a, b, ...), and gives each
 * run's results in turn order. Runs are awaited one at a time, never in parallel.
 */
export async function alternateTrials<T>(trials: number, runs: readonly (() => Promise<T>)[]): Promise<T[][]> {
  const results = runs.map((): T[] => []);
  for (let trial = 0; trial < trials; trial++) {
    for (const [index, run] of runs.entries()) results[index]!.push(await run());
  }
  return results;
}
