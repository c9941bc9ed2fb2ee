/**
 * The headline figures of one bench run, read one way for both the budget table (budgets.ts) and the chart of
 * docs/performance.md (chartFiguresOf below, drawn by chart.ts), so the two always show the same numbers.
 */
import type { FunctionName } from "../../shared/config/index.ts";
import type { ChartFigures, ChartGroup, ChartPanel } from "./chart.ts";
import type { ColdStart } from "./cold-start.ts";
import { cpuMicrosPerReview, maxRoundRssBytes, type FrugalFigures } from "./frugal.ts";
import { FLOOR_SERVER_NAME, NODE_SERVER_NAME } from "./measured-target.ts";
import { addedP50, type PodCreateRounds } from "./pod-create.ts";
import type { ReferenceFigures } from "./reference-phase.ts";
import { REFERENCE_SERVER_NAME } from "./reference.ts";
import type { ReviewFiles } from "./review-files.ts";
import type { ReviewTrials } from "./review-trials.ts";
import type { RuntimeFigures } from "./runtime-phase.ts";
import { MIB } from "./table.ts";
import { median, medianRatio } from "./trials.ts";
import type { BundleSize } from "./worker-bundle.ts";

/** The functions in the order every pair is shown: expand / authorize. */
export const PAIR_ORDER: readonly FunctionName[] = ["expand", "authorize"];
/** The concurrency of the reviews-per-second budget. */
export const BUDGET_CONCURRENCY = 16;
/** The pod sizes of the reviews-per-second budgets (containers). */
export const BUDGET_POD_SIZES = [1, 10] as const;

/** What one run measured, as run.ts holds it; a part the run skipped is empty or absent. */
export interface RunFigures {
  bundles: readonly BundleSize[];
  coldStarts: readonly ColdStart[];
  phases: readonly RuntimeFigures[];
  frugal: readonly FrugalFigures[];
  reference?: ReferenceFigures | undefined;
  /** The reviews-per-second budget's alternating trials (review-trials.ts); empty without a cluster. */
  reviewTrials: readonly ReviewTrials[];
  /** Our files a warm review runs code in, per function (review-files.ts). */
  reviewFiles?: ReviewFiles | undefined;
  /** `*.ts` lines of the webhook code: functions/ and shared/ (source-lines.ts). */
  sourceLines?: number;
  /** `*.ts` lines of the CLI (cli/), counted apart from the webhook code. */
  cliSourceLines?: number;
  /** `*.ts` lines under test/: every tier and the bench. */
  testLines?: number;
}

/** Section G's server CPU per warm review of `server`'s `fn`, µs. */
export function serverCpuMicros(run: RunFigures, server: string, fn: FunctionName): number | undefined {
  const f = run.frugal.find((f) => f.server === server && f.fn === fn);
  return f === undefined ? undefined : cpuMicrosPerReview(f);
}

/** The trials of the reviews-per-second budget for `fn` and a pod of `containers`. */
function trialsOf(run: RunFigures, fn: FunctionName, containers: number): ReviewTrials | undefined {
  return run.reviewTrials.find((t) => t.fn === fn && t.containers === containers);
}

/** Reviews/s at the budget's concurrency, the median of the alternating trials, ours or the Go reference's. */
export function reviewsPerSecond(
  run: RunFigures,
  who: "node" | "reference",
  fn: FunctionName,
  containers: number,
): number | undefined {
  const trials = trialsOf(run, fn, containers);
  const loads = who === "node" ? trials?.ours : trials?.go;
  return loads === undefined || loads.length === 0 ? undefined : median(loads.map((l) => l.perSecond));
}

/** Ours over Go's reviews/s, the median of the trial-by-trial ratios; undefined without the reference's trials. */
export function reviewsPerSecondRatio(run: RunFigures, fn: FunctionName, containers: number): number | undefined {
  const trials = trialsOf(run, fn, containers);
  if (trials?.go === undefined) return undefined;
  return medianRatio(
    trials.ours.map((l) => l.perSecond),
    trials.go.map((l) => l.perSecond),
  );
}

export function podCreateRounds(run: RunFigures, who: "node" | "reference"): PodCreateRounds | undefined {
  return who === "node" ? run.phases.find((p) => p.runtime === "node")?.podCreate : run.reference?.podCreate;
}

/**
 * What a webhook pair adds to a pod create at p50 (ms) and the floor's in the same creates, each the median of the
 * rounds, and the median of the round-by-round ratios (each round alternates the floor's creates with the pair's).
 */
export function podCreateAdded(
  rounds: PodCreateRounds | undefined,
): { added: number; floor: number; ratio: number; rounds: number } | undefined {
  if (rounds === undefined || rounds.webhooks.length === 0) return undefined;
  const added = rounds.webhooks.map(addedP50);
  const floor = rounds.floor.map(addedP50);
  return { added: median(added), floor: median(floor), ratio: medianRatio(added, floor), rounds: added.length };
}

/** Resident memory, MiB: idle, the most after a round, and the growth over the last round. */
export type ResidentMiB = Record<"idle" | "afterLoad" | "growth", number>;

/**
 * Section G's resident memory of `server` in MiB, the largest of its functions; growth is over the last round only,
 * after the heap's one warm-up step in the first rounds (docs/performance.md).
 */
export function residentMiB(run: RunFigures, server: string): ResidentMiB | undefined {
  const figures = run.frugal.filter((f) => f.server === server && f.roundRssBytes.length > 0);
  if (figures.length === 0) return undefined;
  return {
    idle: Math.max(...figures.map((f) => f.idleRssBytes)) / MIB,
    afterLoad: Math.max(...figures.map(maxRoundRssBytes)) / MIB,
    growth: Math.max(...figures.map(lastRoundGrowthBytes)) / MIB,
  };
}

/** RSS after the last round less RSS after the one before (0 with a single round), bytes. */
export function lastRoundGrowthBytes(f: FrugalFigures): number {
  const rounds = f.roundRssBytes;
  return rounds.length < 2 ? 0 : rounds.at(-1)! - rounds.at(-2)!;
}

/** Reviews per round of section G (the same for every target). */
export function reviewsPerRound(run: RunFigures): { rounds: number; reviews: number } | undefined {
  const f = run.frugal[0];
  return f === undefined || f.roundRssBytes.length === 0
    ? undefined
    : { rounds: f.roundRssBytes.length, reviews: f.reviews / f.roundRssBytes.length };
}

/** A value per series, leaving out the series that was not measured. */
function group(label: string, ours: number | undefined, go: number | undefined, floor?: number): ChartGroup {
  const values = Object.entries({ ours, go, floor }).filter(([, value]) => value !== undefined);
  return { label, values: Object.fromEntries(values) };
}

/** The chart's panels from one run, which started at `startedAt` (ISO 8601); a figure not measured is left out. */
export function chartFiguresOf(inputs: RunFigures & { startedAt: string }): ChartFigures {
  const byServer = (label: string, read: (server: string) => number | undefined) =>
    group(label, read(NODE_SERVER_NAME), read(REFERENCE_SERVER_NAME), read(FLOOR_SERVER_NAME));
  const created = podCreateAdded(podCreateRounds(inputs, "node"));
  const panels: ChartPanel[] = [
    {
      title: "Server CPU per warm review, 1-container pod",
      unit: "µs",
      lowerIsBetter: true,
      groups: PAIR_ORDER.map((fn) => byServer(fn, (server) => serverCpuMicros(inputs, server, fn))),
    },
    ...BUDGET_POD_SIZES.map((containers): ChartPanel => ({
      title: `Reviews per second straight to the function, ${containers}-container pod, concurrency ${BUDGET_CONCURRENCY}`,
      unit: "/s",
      lowerIsBetter: false,
      groups: PAIR_ORDER.map((fn) =>
        group(
          fn,
          reviewsPerSecond(inputs, "node", fn, containers),
          reviewsPerSecond(inputs, "reference", fn, containers),
        ),
      ),
    })),
    {
      title: "Added to a pod create through kube-apiserver, p50",
      unit: "ms",
      lowerIsBetter: true,
      digits: 2,
      groups: [
        group(
          "pod create",
          created?.added,
          podCreateAdded(podCreateRounds(inputs, "reference"))?.added,
          created?.floor,
        ),
      ],
    },
    {
      title: "Resident memory (largest of expand and authorize)",
      unit: "MiB",
      lowerIsBetter: true,
      digits: 1,
      groups: [
        byServer("idle", (server) => residentMiB(inputs, server)?.idle),
        byServer("after load", (server) => residentMiB(inputs, server)?.afterLoad),
      ],
    },
  ];
  const measured = panels
    .map((p) => ({ ...p, groups: p.groups.filter((g) => Object.keys(g.values).length > 0) }))
    .filter((p) => p.groups.length > 0);
  const reference = inputs.reference === undefined ? "; the Go reference not run (GMSA_REF_BIN unset)" : "";
  return {
    subtitle: `npm run bench of ${inputs.startedAt.slice(0, 16).replace("T", " ")} UTC${reference}`,
    panels: measured,
  };
}
