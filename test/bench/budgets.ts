/**
 * The budget table of docs/performance.md (issue 36), judged from the figures of one run (figures.ts), our Node server
 * beside the Go reference where the budget is relative to it: reported, never asserted. The rows that move between
 * runs (reviews per second, pod creates) are judged on the median of three alternating trials (trials.ts). Printed
 * last, in the rows of docs/performance.md's table.
 */
import type { FunctionName } from "../../shared/config/index.ts";
import {
  BUDGET_CONCURRENCY,
  lambdaColdStart,
  PAIR_ORDER,
  podCreateAdded,
  podCreateRounds,
  residentMiB,
  reviewsPerRound,
  reviewsPerSecond,
  reviewsPerSecondRatio,
  serverCpuMicros,
  workerBundleGzipKiB,
  type RunFigures,
} from "./figures.ts";
import { NODE_SERVER_NAME } from "./measured-target.ts";
import { REFERENCE_SERVER_NAME } from "./reference.ts";
import { fixed, formatTable } from "./table.ts";
import { BUDGET_TRIALS } from "./trials.ts";

/** Whether a budget is met; the last two when the run could not judge it. */
export type Verdict = "met" | "NOT MET" | "needs GMSA_REF_BIN" | "not measured";

export interface BudgetRow {
  figure: string;
  budget: string;
  ours: string;
  go: string;
  verdict: Verdict;
}

/** Resident memory budgets, MiB: idle, after the rounds, and growth over the last round (after the heap's warm-up step). */
export const RSS_BUDGET_MIB = { idle: 75, afterLoad: 100, lastRoundGrowth: 2 } as const;
/** The webhook code's lines (functions/ and shared/, the CLI apart), at most. */
export const SOURCE_LINES_BUDGET = 6_750;
/** Test lines (every `*.ts` under test/), fewer than. */
export const TEST_LINES_BUDGET = 26_500;
/** Files a warm review crosses, per function, at most. */
export const REVIEW_FILES_BUDGET = 12;
/** The Lambda cold start as deployed, median, ms; and the cold starts a full run takes the median of. */
export const LAMBDA_COLD_START_BUDGET_MS = 100;
export const LAMBDA_COLD_STARTS = 10;

/** `value` with thousands separators and `digits` decimals; "-" when absent or not finite. */
function num(value: number | undefined, digits = 0): string {
  return value === undefined || !Number.isFinite(value)
    ? "-"
    : value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** A figure per function of the pair (expand / authorize), or undefined when one is missing. */
function pair(read: (fn: FunctionName) => number | undefined): number[] | undefined {
  const values = PAIR_ORDER.map(read);
  return values.every((v) => v !== undefined) ? values : undefined;
}

function verdict(met: boolean): Verdict {
  return met ? "met" : "NOT MET";
}

/**
 * A budget relative to the Go reference: each of our figures against Go's, judged by `within` on every ratio.
 * @param unit after the pair of values, e.g. " µs"
 * @param ratios ours over Go's per function; default each of our figures over Go's
 */
function relativeRow(
  figure: string,
  budget: string,
  ours: number[] | undefined,
  go: number[] | undefined,
  unit: string,
  digits: number,
  within: (ratio: number) => boolean,
  ratios = ours !== undefined && go !== undefined ? ours.map((v, i) => v / go[i]!) : undefined,
): BudgetRow {
  const values = (v: number[]) => `${v.map((x) => num(x)).join(" / ")}${unit}`;
  if (ours === undefined)
    return { figure, budget, ours: "-", go: go === undefined ? "-" : values(go), verdict: "not measured" };
  if (go === undefined || ratios === undefined)
    return { figure, budget, ours: values(ours), go: "-", verdict: "needs GMSA_REF_BIN" };
  return {
    figure,
    budget,
    ours: `${values(ours)} (${ratios.map((r) => `${fixed(r, digits)}x`).join(" / ")})`,
    go: values(go),
    verdict: verdict(ratios.every(within)),
  };
}

/** The memory budget on `rss` (residentMiB): idle, after the rounds, and growth over the last round. */
export function judgeResidentMemory(rss: { idle: number; afterLoad: number; growth: number } | undefined): Verdict {
  if (rss === undefined) return "not measured";
  return verdict(
    rss.idle <= RSS_BUDGET_MIB.idle &&
      rss.afterLoad <= RSS_BUDGET_MIB.afterLoad &&
      rss.growth <= RSS_BUDGET_MIB.lastRoundGrowth,
  );
}

/** Every budget, judged from `run`'s figures. */
export function judgeBudgets(run: RunFigures): BudgetRow[] {
  const withGo = run.reference !== undefined;
  const rows: BudgetRow[] = [];

  rows.push(
    relativeRow(
      "server CPU per warm review, 1-container pod",
      "≤ 0.5x Go's",
      pair((fn) => serverCpuMicros(run, NODE_SERVER_NAME, fn)),
      withGo ? pair((fn) => serverCpuMicros(run, REFERENCE_SERVER_NAME, fn)) : undefined,
      " µs",
      2,
      (r) => r <= 0.5,
    ),
  );
  for (const [containers, figure, least] of [
    [1, `reviews per second straight to a function, concurrency ${BUDGET_CONCURRENCY}, 1-container pod`, 3],
    [10, "the same, 10-container pod naming 5 credspecs", 10],
  ] as const) {
    rows.push(
      relativeRow(
        figure,
        `≥ ${least}x Go's (median of ${BUDGET_TRIALS})`,
        pair((fn) => reviewsPerSecond(run, "node", fn, containers)),
        withGo ? pair((fn) => reviewsPerSecond(run, "reference", fn, containers)) : undefined,
        "",
        1,
        (r) => r >= least,
        withGo ? pair((fn) => reviewsPerSecondRatio(run, fn, containers)) : undefined,
      ),
    );
  }

  const created = podCreateAdded(podCreateRounds(run, "node"));
  const goCreated = podCreateAdded(podCreateRounds(run, "reference"));
  rows.push({
    figure: "what the webhooks add to a pod create through kube-apiserver, p50",
    budget: `≤ 1.5x a do-nothing webhook pair's (median of ${BUDGET_TRIALS})`,
    ours:
      created === undefined
        ? "-"
        : `${fixed(created.added, 2)} ms: ${fixed(created.ratio, 2)}x the pair's ${fixed(created.floor, 2)} ms (medians of ${created.rounds})`,
    go: goCreated === undefined ? "-" : `${fixed(goCreated.added, 2)} ms: ${fixed(goCreated.ratio, 2)}x`,
    verdict: created === undefined ? "not measured" : verdict(created.ratio <= 1.5),
  });

  const rounds = reviewsPerRound(run);
  const rss = residentMiB(run, NODE_SERVER_NAME);
  const goRss = residentMiB(run, REFERENCE_SERVER_NAME);
  const rssText = (r: NonNullable<typeof rss>) =>
    `${fixed(r.idle, 1)} / ${fixed(r.afterLoad, 1)} MiB (${r.growth >= 0 ? "+" : ""}${fixed(r.growth, 1)} over the last round)`;
  rows.push({
    figure: `resident memory of the Node server, idle / after ${rounds === undefined ? "3 x 20,000" : `${rounds.rounds} x ${num(rounds.reviews)}`} reviews, production flags`,
    budget: `≤ ${RSS_BUDGET_MIB.idle} / ≤ ${RSS_BUDGET_MIB.afterLoad} MiB; growth from round 2 to round 3 ≤ ${RSS_BUDGET_MIB.lastRoundGrowth} MiB`,
    ours: rss === undefined ? "-" : rssText(rss),
    go: goRss === undefined ? "-" : rssText(goRss),
    verdict: judgeResidentMemory(rss),
  });

  const cold = lambdaColdStart(run);
  rows.push({
    figure: "Lambda: import of the bundle and first answer, cold, as deployed",
    budget: `≤ ${LAMBDA_COLD_START_BUDGET_MS} ms (median of ${LAMBDA_COLD_STARTS})`,
    // CPU beside the wall time: on a shared machine it says whether a slow figure waited for a core.
    ours:
      cold === undefined
        ? "-"
        : `${fixed(cold.totalMs.p50, 1)} ms, median of ${cold.totalMs.count} (CPU ${fixed(cold.totalCpuMs.p50, 1)} ms)`,
    go: "",
    verdict: cold === undefined ? "not measured" : verdict(cold.totalMs.p50 <= LAMBDA_COLD_START_BUDGET_MS),
  });

  const gzip = workerBundleGzipKiB(run);
  rows.push({
    figure: "Worker bundle, gzipped",
    budget: "≤ 150 KiB",
    ours: gzip === undefined ? "-" : `${fixed(gzip, 1)} KiB`,
    go: "",
    verdict: gzip === undefined ? "not measured" : verdict(gzip <= 150),
  });

  rows.push({
    figure: "webhook code: `functions/` + `shared/` source lines (`*.ts`), without the CLI",
    budget: `≤ ${num(SOURCE_LINES_BUDGET)}`,
    ours:
      run.sourceLines === undefined
        ? "-"
        : `${num(run.sourceLines)}${run.cliSourceLines === undefined ? "" : ` (the CLI apart: ${num(run.cliSourceLines)} in cli/, not judged)`}`,
    go: "",
    verdict: run.sourceLines === undefined ? "not measured" : verdict(run.sourceLines <= SOURCE_LINES_BUDGET),
  });

  const files = run.reviewFiles;
  rows.push({
    figure: "files a warm authorize / expand review crosses",
    budget: `≤ ${REVIEW_FILES_BUDGET} / ≤ ${REVIEW_FILES_BUDGET}`,
    ours: files === undefined ? "-" : `${files.authorize.length} / ${files.expand.length}`,
    go: "",
    verdict:
      files === undefined
        ? "not measured"
        : verdict(files.authorize.length <= REVIEW_FILES_BUDGET && files.expand.length <= REVIEW_FILES_BUDGET),
  });

  rows.push({
    figure: "test lines: every `*.ts` under `test/`, all tiers and the bench",
    budget: `fewer than ${num(TEST_LINES_BUDGET)}, every behaviour still tested`,
    ours: run.testLines === undefined ? "-" : num(run.testLines),
    go: "",
    verdict: run.testLines === undefined ? "not measured" : verdict(run.testLines < TEST_LINES_BUDGET),
  });
  return rows;
}

/** Prints the budget table, in the rows of docs/performance.md's, under `runLine` (which run it comes from). */
export function printBudgets(rows: readonly BudgetRow[], runLine: string): void {
  console.log("\n### Budgets (reported, not asserted; the table of docs/performance.md)\n");
  console.log(`${runLine}\n`);
  console.log(
    formatTable(
      ["figure", "budget", "gmsa-webhooks", REFERENCE_SERVER_NAME, "met"],
      rows.map((r) => [r.figure, r.budget, r.ours, r.go, r.verdict]),
    ),
  );
}
