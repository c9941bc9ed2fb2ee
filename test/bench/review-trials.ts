/**
 * The reviews-per-second budget rows: per function and pod size, three trials of our production server and of the Go
 * reference taking turns (trials.ts), each a closed-loop load as in section B; without the reference, ours alone.
 */
import type { FunctionName } from "../../shared/config/index.ts";
import { CONTAINER_COUNTS, type ContainerCount } from "./bench-pods.ts";
import { BUDGET_CONCURRENCY, PAIR_ORDER } from "./figures.ts";
import { runLoad, type LoadResult } from "./load.ts";
import { loadOf, type MeasuredTarget, type ReviewBodies } from "./measured-target.ts";
import { fixed, printColumns } from "./table.ts";
import { alternateTrials, BUDGET_TRIALS, median, medianRatio } from "./trials.ts";

/** One function and pod size: our trials and, with the reference, its trials in between. */
export interface ReviewTrials {
  fn: FunctionName;
  containers: ContainerCount;
  ours: LoadResult[];
  go?: LoadResult[];
}

export interface ReviewTrialsOptions {
  bodies: ReviewBodies;
  /** Timed requests of one trial, and its longest duration (ms). */
  maxRequests: number;
  maxDurationMs: number;
  /**
   * How long each server is loaded, untimed, before its first trial of a function and pod size. By time rather than by
   * count, so both servers get the same time at any speed: our server's CPU per review still falls through its first
   * 60,000 reviews as V8 tiers up its code, and a count that warms ours would take minutes on Go's 10-container rows.
   */
  warmupMs: number;
  log: (line: string) => void;
}

/** Reviews sent untimed at the start of every trial: each trial opens its connections afresh (TLS handshakes). */
const TRIAL_WARMUP_PER_CONNECTION = 2;

/** The warm-up's request count, above what any server answers in its time (runLoad keeps a latency per request). */
const WARMUP_REQUESTS_CAP = 1_000_000;

/**
 * Measures every function and pod size of the budget: `ours` and, when given, `go` (both a target per function),
 * warmed up once, then {@link BUDGET_TRIALS} trials each, alternating.
 */
export async function measureReviewTrials(
  ours: readonly MeasuredTarget[],
  go: readonly MeasuredTarget[] | undefined,
  options: ReviewTrialsOptions,
): Promise<ReviewTrials[]> {
  const results: ReviewTrials[] = [];
  for (const fn of PAIR_ORDER) {
    const targets = [ours, ...(go === undefined ? [] : [go])].map((set) => set.find((t) => t.fn === fn)!);
    for (const containers of CONTAINER_COUNTS) {
      const body = options.bodies[fn][containers];
      const load = (target: MeasuredTarget, maxRequests: number, maxDurationMs: number, warmupRequests: number) =>
        runLoad(loadOf(target, body, { concurrency: BUDGET_CONCURRENCY, maxRequests, maxDurationMs, warmupRequests }));
      for (const target of targets) await load(target, WARMUP_REQUESTS_CAP, options.warmupMs, 0);
      const [oursTrials, goTrials] = await alternateTrials(
        BUDGET_TRIALS,
        targets.map((target) => async () => {
          const result = await load(
            target,
            options.maxRequests,
            options.maxDurationMs,
            BUDGET_CONCURRENCY * TRIAL_WARMUP_PER_CONNECTION,
          );
          options.log(
            `${target.server} ${fn} ${containers}c x${BUDGET_CONCURRENCY}: ${result.perSecond.toFixed(0)}/s, errors ${result.errors}`,
          );
          return result;
        }),
      );
      results.push({ fn, containers, ours: oursTrials!, ...(goTrials === undefined ? {} : { go: goTrials }) });
    }
  }
  return results;
}

export const trialErrors = (t: ReviewTrials) => [...t.ours, ...(t.go ?? [])].reduce((sum, l) => sum + l.errors, 0);

/** Every trial, then the medians the budget table judges. */
export function printReviewTrials(trials: readonly ReviewTrials[], serverNames: { ours: string; go: string }): void {
  const rates = (loads: readonly LoadResult[]) => loads.map((l) => l.perSecond);
  const list = (values: readonly number[] | undefined) => values?.map((v) => fixed(v)).join(", ") ?? "-";
  type TrialRates = { t: ReviewTrials; ours: number[]; go: number[] | undefined };
  const withGo = (read: (ours: number[], go: number[]) => string) => (r: TrialRates) =>
    r.go === undefined ? "-" : read(r.ours, r.go);
  printColumns(
    `B. Budget trials: reviews per second at concurrency ${BUDGET_CONCURRENCY}, ${BUDGET_TRIALS} trials alternating (ours, Go's, ours, ...)`,
    [
      ["function", ({ t }) => t.fn],
      ["containers", ({ t }) => t.containers],
      [`${serverNames.ours} trials`, ({ ours }) => list(ours)],
      [`${serverNames.go} trials`, ({ go }) => list(go)],
      ["ours / Go's by trial", withGo((ours, go) => ours.map((v, i) => `${fixed(v / go[i]!, 1)}x`).join(", "))],
      ["median ours", ({ ours }) => fixed(median(ours))],
      ["median Go's", withGo((_, go) => fixed(median(go)))],
      ["median of the ratios", withGo((ours, go) => `${fixed(medianRatio(ours, go), 1)}x`)],
      ["errors", ({ t }) => trialErrors(t)],
    ],
    trials.map((t): TrialRates => ({ t, ours: rates(t.ours), go: t.go === undefined ? undefined : rates(t.go) })),
    "Our production server bundle (the one section G measures) and the Go reference, both running, fresh connections " +
      "for each trial; each server warmed up once before its first trial.",
  );
}
