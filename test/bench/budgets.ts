/**
 * The budget table of docs/performance.md (issue 36), judged from one run's figures (figures.ts): reported, never
 * asserted. The rows that move between runs are judged on the median of three alternating trials (trials.ts).
 */
import type { FunctionName } from "../../shared/config/index.ts";
import {
  BUDGET_CONCURRENCY,
  PAIR_ORDER,
  podCreateAdded,
  podCreateRounds,
  residentMiB,
  reviewsPerRound,
  reviewsPerSecond,
  reviewsPerSecondRatio,
  serverCpuMicros,
  type ResidentMiB,
  type RunFigures,
} from "./figures.ts";
import { NODE_SERVER_NAME } from "./measured-target.ts";
import { REFERENCE_SERVER_NAME } from "./reference.ts";
import { fixed, formatTable, num } from "./table.ts";
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
export function judgeResidentMemory(rss: ResidentMiB | undefined): Verdict {
  if (rss === undefined) return "not measured";
  return verdict(
    rss.idle <= RSS_BUDGET_MIB.idle &&
      rss.afterLoad <= RSS_BUDGET_MIB.afterLoad &&
      rss.growth <= RSS_BUDGET_MIB.lastRoundGrowth,
  );
}

/**
 * A budget row: `text` of the figure and its verdict by `met`; "-" and "not measured" without it. `go` is the Go
 * reference's column ("" where the budget is ours alone).
 */
function row<T>(
  figure: string,
  budget: string,
  value: T | undefined,
  text: (value: T) => string,
  met: (value: T) => boolean,
  go = "",
): BudgetRow {
  return value === undefined
    ? { figure, budget, ours: "-", go, verdict: "not measured" }
    : { figure, budget, ours: text(value), go, verdict: verdict(met(value)) };
}

/** Every budget, judged from `run`'s figures. */
export function judgeBudgets(run: RunFigures): BudgetRow[] {
  const withGo = run.reference !== undefined;
  const created = podCreateAdded(podCreateRounds(run, "node"));
  const goCreated = podCreateAdded(podCreateRounds(run, "reference"));
  const rounds = reviewsPerRound(run);
  const rss = residentMiB(run, NODE_SERVER_NAME);
  const goRss = residentMiB(run, REFERENCE_SERVER_NAME);
  const rssText = (r: ResidentMiB) =>
    `${fixed(r.idle, 1)} / ${fixed(r.afterLoad, 1)} MiB (${r.growth >= 0 ? "+" : ""}${fixed(r.growth, 1)} over the last round)`;
  const files = run.reviewFiles;
  return [
    relativeRow(
      "server CPU per warm review, 1-container pod",
      "≤ 0.5x Go's",
      pair((fn) => serverCpuMicros(run, NODE_SERVER_NAME, fn)),
      withGo ? pair((fn) => serverCpuMicros(run, REFERENCE_SERVER_NAME, fn)) : undefined,
      " µs",
      2,
      (r) => r <= 0.5,
    ),
    ...(
      [
        [1, `reviews per second straight to a function, concurrency ${BUDGET_CONCURRENCY}, 1-container pod`, 3],
        [10, "the same, 10-container pod naming 5 credspecs", 10],
      ] as const
    ).map(([containers, figure, least]) =>
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
    ),
    row(
      "what the webhooks add to a pod create through kube-apiserver, p50",
      `≤ 1.5x a do-nothing webhook pair's (median of ${BUDGET_TRIALS})`,
      created,
      (c) =>
        `${fixed(c.added, 2)} ms: ${fixed(c.ratio, 2)}x the pair's ${fixed(c.floor, 2)} ms (medians of ${c.rounds})`,
      (c) => c.ratio <= 1.5,
      goCreated === undefined ? "-" : `${fixed(goCreated.added, 2)} ms: ${fixed(goCreated.ratio, 2)}x`,
    ),
    {
      figure: `resident memory of the Node server, idle / after ${rounds === undefined ? "3 x 20,000" : `${rounds.rounds} x ${num(rounds.reviews)}`} reviews, production flags`,
      budget: `≤ ${RSS_BUDGET_MIB.idle} / ≤ ${RSS_BUDGET_MIB.afterLoad} MiB; growth from round 2 to round 3 ≤ ${RSS_BUDGET_MIB.lastRoundGrowth} MiB`,
      ours: rss === undefined ? "-" : rssText(rss),
      go: goRss === undefined ? "-" : rssText(goRss),
      verdict: judgeResidentMemory(rss),
    },
    row(
      "Lambda: import of the bundle and first answer, cold, as deployed",
      `≤ ${LAMBDA_COLD_START_BUDGET_MS} ms (median of ${LAMBDA_COLD_STARTS})`,
      run.coldStarts.find((c) => c.setup === "as deployed"),
      // CPU beside the wall time: on a shared machine it says whether a slow figure waited for a core.
      (c) => `${fixed(c.totalMs.p50, 1)} ms, median of ${c.totalMs.count} (CPU ${fixed(c.totalCpuMs.p50, 1)} ms)`,
      (c) => c.totalMs.p50 <= LAMBDA_COLD_START_BUDGET_MS,
    ),
    row(
      "Worker bundle, gzipped",
      "≤ 150 KiB",
      run.bundles.length === 0 ? undefined : Math.max(...run.bundles.map((b) => b.gzipBytes)) / 1024,
      (kib) => `${fixed(kib, 1)} KiB`,
      (kib) => kib <= 150,
    ),
    row(
      "webhook code: `functions/` + `shared/` source lines (`*.ts`), without the CLI",
      `≤ ${num(SOURCE_LINES_BUDGET)}`,
      run.sourceLines,
      (lines) =>
        `${num(lines)}${run.cliSourceLines === undefined ? "" : ` (the CLI apart: ${num(run.cliSourceLines)} in cli/, not judged)`}`,
      (lines) => lines <= SOURCE_LINES_BUDGET,
    ),
    row(
      "files a warm authorize / expand review crosses",
      `≤ ${REVIEW_FILES_BUDGET} / ≤ ${REVIEW_FILES_BUDGET}`,
      files,
      (f) => `${f.authorize.length} / ${f.expand.length}`,
      (f) => f.authorize.length <= REVIEW_FILES_BUDGET && f.expand.length <= REVIEW_FILES_BUDGET,
    ),
    row(
      "test lines: every `*.ts` under `test/`, all tiers and the bench",
      `fewer than ${num(TEST_LINES_BUDGET)}, every behaviour still tested`,
      run.testLines,
      num,
      (lines) => lines < TEST_LINES_BUDGET,
    ),
  ];
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
