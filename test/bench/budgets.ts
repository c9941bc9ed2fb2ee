/**
 * The budget table of docs/performance.md, judged from the figures of one run (figures.ts), our Node server beside
 * the Go reference where the budget is relative to it: reported, never asserted. Printed last, in the layout of
 * docs/performance.md's table, so one run's output pastes into it as is.
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
  serverCpuMicros,
  workerBundleGzipKiB,
  type RunFigures,
} from "./figures.ts";
import { NODE_SERVER_NAME } from "./node-targets.ts";
import { REFERENCE_SERVER_NAME } from "./reference.ts";
import { fixed, formatTable } from "./table.ts";

/** Whether a budget is met; the last two when the run could not judge it. */
export type Verdict = "met" | "NOT MET" | "needs GMSA_REF_BIN" | "not measured";

export interface BudgetRow {
  figure: string;
  budget: string;
  ours: string;
  go: string;
  verdict: Verdict;
}

/** RSS after the last round may exceed the first round's by this much and still count as flat (MiB). */
export const FLAT_RSS_MIB = 5;
/** The source-lines budget: "well under" this many. */
export const SOURCE_LINES_BUDGET = 7_500;
/** "Well under" read as at least 10% under, so a count just below the line does not pass. */
const WELL_UNDER = 0.9;

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
 * A budget relative to the Go reference: each of our figures over Go's, judged by `within` on every ratio.
 * @param unit after the pair of values, e.g. " µs"
 */
function relativeRow(
  figure: string,
  budget: string,
  ours: number[] | undefined,
  go: number[] | undefined,
  unit: string,
  digits: number,
  within: (ratio: number) => boolean,
): BudgetRow {
  const values = (v: number[]) => `${v.map((x) => num(x)).join(" / ")}${unit}`;
  if (ours === undefined)
    return { figure, budget, ours: "-", go: go === undefined ? "-" : values(go), verdict: "not measured" };
  if (go === undefined) return { figure, budget, ours: values(ours), go: "-", verdict: "needs GMSA_REF_BIN" };
  const ratios = ours.map((v, i) => v / go[i]!);
  return {
    figure,
    budget,
    ours: `${values(ours)} (${ratios.map((r) => `${fixed(r, digits)}x`).join(" / ")})`,
    go: values(go),
    verdict: verdict(ratios.every(within)),
  };
}

/** Every budget, judged from `run`'s figures. */
export function judgeBudgets(run: RunFigures): BudgetRow[] {
  const withGo = run.reference !== undefined;
  const rows: BudgetRow[] = [];

  rows.push(
    relativeRow(
      "server CPU per warm review, 1-container pod",
      "≤ 0.5x Go's in the same run",
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
        `≥ ${least}x Go's`,
        pair((fn) => reviewsPerSecond(run, "node", fn, containers)),
        withGo ? pair((fn) => reviewsPerSecond(run, "reference", fn, containers)) : undefined,
        "",
        1,
        (r) => r >= least,
      ),
    );
  }

  const created = podCreateAdded(podCreateRounds(run, "node"));
  const goCreated = podCreateAdded(podCreateRounds(run, "reference"));
  rows.push({
    figure: "what the webhooks add to a pod create through kube-apiserver, p50",
    budget: "≤ 1.5x a do-nothing webhook pair's",
    ours:
      created === undefined
        ? "-"
        : `${fixed(created.added, 2)} ms: ${fixed(created.ratio, 2)}x the pair's ${fixed(created.floor, 2)} ms`,
    go: goCreated === undefined ? "-" : `${fixed(goCreated.added, 2)} ms: ${fixed(goCreated.ratio, 2)}x`,
    verdict: created === undefined ? "not measured" : verdict(created.ratio <= 1.5),
  });

  const rounds = reviewsPerRound(run);
  const rss = residentMiB(run, NODE_SERVER_NAME);
  const goRss = residentMiB(run, REFERENCE_SERVER_NAME);
  const rssText = (r: NonNullable<typeof rss>) =>
    `${fixed(r.idle, 1)} / ${fixed(r.afterLoad, 1)} MiB (${r.growth >= 0 ? "+" : ""}${fixed(r.growth, 1)} over the rounds)`;
  rows.push({
    figure: `resident memory of the Node server, idle / after ${rounds === undefined ? "3 x 20,000" : `${rounds.rounds} x ${num(rounds.reviews)}`} reviews, production flags`,
    budget: `≤ 75 / ≤ 100 MiB, flat (± ${FLAT_RSS_MIB} MiB)`,
    ours: rss === undefined ? "-" : rssText(rss),
    go: goRss === undefined ? "-" : rssText(goRss),
    verdict:
      rss === undefined
        ? "not measured"
        : verdict(rss.idle <= 75 && rss.afterLoad <= 100 && Math.abs(rss.growth) <= FLAT_RSS_MIB),
  });

  const cold = lambdaColdStart(run);
  rows.push({
    figure: "Lambda: import of the bundle and first answer, cold (median)",
    budget: "≤ 80 ms",
    // CPU beside the wall time: on a shared machine it says whether a slow figure waited for a core.
    ours: cold === undefined ? "-" : `${fixed(cold.totalMs.p50, 1)} ms (CPU ${fixed(cold.totalCpuMs.p50, 1)} ms)`,
    go: "",
    verdict: cold === undefined ? "not measured" : verdict(cold.totalMs.p50 <= 80),
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
    figure: "`functions/` + `shared/` + `cli/` source lines (`*.ts`)",
    budget: `well under ${num(SOURCE_LINES_BUDGET)} (≤ ${num(SOURCE_LINES_BUDGET * WELL_UNDER)})`,
    ours:
      run.sourceLines === undefined
        ? "-"
        : `${num(run.sourceLines)}${run.cliSourceLines === undefined ? "" : ` (the CLI in cli/ ${num(run.cliSourceLines)}, the rest ${num(run.sourceLines - run.cliSourceLines)})`}`,
    go: "",
    verdict:
      run.sourceLines === undefined ? "not measured" : verdict(run.sourceLines <= SOURCE_LINES_BUDGET * WELL_UNDER),
  });
  return rows;
}

/**
 * Prints the budget table in docs/performance.md's layout, under `runLine` (which run it comes from): the two paste
 * into the page as they are.
 */
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
