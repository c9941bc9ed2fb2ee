/**
 * The headline figures of one bench run, read one way for both the budget table (budgets.ts) and the chart of
 * docs/performance.md (chart-figures.ts), so the two always show the same numbers.
 */
import type { FunctionName } from "../../shared/config/index.ts";
import type { ColdStart } from "./cold-start.ts";
import { cpuMicrosPerReview, maxRoundRssBytes, type FrugalFigures } from "./frugal.ts";
import { meanAddedP50, type PodCreateRounds } from "./pod-create.ts";
import type { ReferenceFigures } from "./reference-phase.ts";
import type { RuntimeFigures } from "./runtime-phase.ts";
import type { BundleSize } from "./worker-bundle.ts";

/** The functions in the order every pair is shown: expand / authorize. */
export const PAIR_ORDER: readonly FunctionName[] = ["expand", "authorize"];
/** The concurrency of the reviews-per-second budget. */
export const BUDGET_CONCURRENCY = 16;
/** The pod sizes of the reviews-per-second budgets (containers). */
export const BUDGET_POD_SIZES = [1, 10] as const;

const MIB = 1024 * 1024;

/** What one run measured, as run.ts holds it; a part the run skipped is empty or absent. */
export interface RunFigures {
  bundles: readonly BundleSize[];
  coldStarts: readonly ColdStart[];
  phases: readonly RuntimeFigures[];
  frugal: readonly FrugalFigures[];
  reference?: ReferenceFigures | undefined;
  /** `*.ts` lines under functions/ and shared/ (source-lines.ts). */
  sourceLines?: number;
  /** Of which the CLI's (cli/). */
  cliSourceLines?: number;
}

/** Section G's server CPU per warm review of `server`'s `fn`, µs. */
export function serverCpuMicros(run: RunFigures, server: string, fn: FunctionName): number | undefined {
  const f = run.frugal.find((f) => f.server === server && f.fn === fn);
  return f === undefined ? undefined : cpuMicrosPerReview(f);
}

/** Section B's reviews/s at the budget's concurrency: our Node server's, or the Go reference's with `reference`. */
export function reviewsPerSecond(
  run: RunFigures,
  who: "node" | "reference",
  fn: FunctionName,
  containers: number,
): number | undefined {
  const cells = who === "node" ? run.phases.find((p) => p.runtime === "node")?.cells : run.reference?.cells;
  return cells?.find((c) => c.fn === fn && c.containers === containers && c.load.concurrency === BUDGET_CONCURRENCY)
    ?.load.perSecond;
}

/** Section F's rounds of our Node server, or of the Go reference. */
export function podCreateRounds(run: RunFigures, who: "node" | "reference"): PodCreateRounds | undefined {
  return who === "node" ? run.phases.find((p) => p.runtime === "node")?.podCreate : run.reference?.podCreate;
}

/** What a webhook pair adds to a pod create at p50 (ms, mean of the rounds), the floor's in the same creates, and their ratio. */
export function podCreateAdded(
  rounds: PodCreateRounds | undefined,
): { added: number; floor: number; ratio: number } | undefined {
  if (rounds === undefined || rounds.webhooks.length === 0) return undefined;
  const added = meanAddedP50(rounds.webhooks);
  const floor = meanAddedP50(rounds.floor);
  return { added, floor, ratio: added / floor };
}

/** Section G's resident memory of `server` in MiB, the largest of its functions: idle, and after the rounds. */
export function residentMiB(
  run: RunFigures,
  server: string,
): { idle: number; afterLoad: number; growth: number } | undefined {
  const figures = run.frugal.filter((f) => f.server === server && f.roundRssBytes.length > 0);
  if (figures.length === 0) return undefined;
  return {
    idle: Math.max(...figures.map((f) => f.idleRssBytes)) / MIB,
    afterLoad: Math.max(...figures.map(maxRoundRssBytes)) / MIB,
    // From the first round's RSS to the last's: what "flat" is judged on.
    growth: Math.max(...figures.map((f) => f.roundRssBytes.at(-1)! - f.roundRssBytes[0]!)) / MIB,
  };
}

/** Reviews per round of section G (the same for every target). */
export function reviewsPerRound(run: RunFigures): { rounds: number; reviews: number } | undefined {
  const f = run.frugal[0];
  return f === undefined || f.roundRssBytes.length === 0
    ? undefined
    : { rounds: f.roundRssBytes.length, reviews: f.reviews / f.roundRssBytes.length };
}

/** The Lambda cold start as deployed (source maps off), ms. */
export function lambdaColdStart(run: RunFigures): ColdStart | undefined {
  return run.coldStarts.find((c) => c.setup === "as deployed");
}

/** The largest Worker bundle, gzipped, KiB. */
export function workerBundleGzipKiB(run: RunFigures): number | undefined {
  return run.bundles.length === 0 ? undefined : Math.max(...run.bundles.map((b) => b.gzipBytes)) / 1024;
}
