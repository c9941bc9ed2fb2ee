/** Section H's tables (rollout.ts): per pair and phase, and the change of the last phase. */
import { summarize, type Summary } from "./percentiles.ts";
import { ROLLOUT_CONCURRENCY } from "./rollout-plan.ts";
import type { RolloutPhase, RolloutRun } from "./rollout.ts";
import type { ChangeFigures, CreateOutcome } from "./rollout-verdict.ts";
import { fixed, printColumns, rowsOf, type Cell, type Column } from "./table.ts";

/** Latency of creates, in ms (answered less sent). */
export function createLatency(outcomes: readonly CreateOutcome[]): Summary {
  return summarize(outcomes.map((o) => o.answeredMs - o.sentMs));
}

type PhaseOfRun = { run: RolloutRun; p: RolloutPhase; floor: Summary; measured: Summary };
type ChangeOfRun = { run: RolloutRun; c: ChangeFigures };

const PHASE_COLUMNS: readonly Column<PhaseOfRun>[] = [
  ["webhooks", ({ run }) => run.server],
  ["caches / limiter", ({ run }) => run.settings],
  ["phase", ({ p }) => p.phase],
  ["creates", ({ p }) => p.measured.length],
  ["creates/s", ({ p }) => fixed((p.measured.length * 1000) / p.durationMs)],
  ["floor p50 / p99 / max", ({ floor: f }) => `${fixed(f.p50, 1)} / ${fixed(f.p99, 1)} / ${fixed(f.max, 1)}`],
  [
    "added p50 / p99 / max",
    ({ floor: f, measured: m }) =>
      `${fixed(m.p50 - f.p50, 1)} / ${fixed(m.p99 - f.p99, 1)} / ${fixed(m.max - f.max, 1)}`,
  ],
  ["API calls: reads + access reviews", ({ p }) => `${p.calls.credspecReads} + ${p.calls.accessReviews}`],
  ["errors", ({ p }) => p.verdicts.error + p.floorErrors],
  ["right", ({ p }) => p.verdicts.right],
  ["stale", ({ p }) => p.verdicts.stale],
  ["wrong", ({ p }) => p.verdicts.wrong],
];

const CHANGE_COLUMNS: readonly Column<ChangeOfRun>[] = [
  ["webhooks", ({ run }) => run.server],
  ["caches / limiter", ({ run }) => run.settings],
  ["change", ({ c }) => (c.change === "revoked" ? "grant revoked: refused" : "credspec edited: new contents")],
  ["creates after it", ({ c }) => c.after],
  ["stale", ({ c }) => c.stale],
  ["last stale sent at (s after the change)", ({ c }) => fixed(c.lastStaleMs / 1000, 1)],
  ["right once a TTL had passed", ({ c }) => `${c.rightAfterTtl} of ${c.afterTtl}`],
];

const phasesOf = (runs: readonly RolloutRun[]): PhaseOfRun[] =>
  runs.flatMap((run) =>
    run.phases.map((p) => ({ run, p, floor: createLatency(p.floor), measured: createLatency(p.measured) })),
  );
const changesOf = (runs: readonly RolloutRun[]): ChangeOfRun[] =>
  runs.flatMap((run) => run.phases.flatMap((p) => p.verdicts.changes.map((c) => ({ run, c }))));

export function rolloutRows(runs: readonly RolloutRun[]): Cell[][] {
  return rowsOf(PHASE_COLUMNS, phasesOf(runs));
}

/** One row per pair and change (the last phase). */
export function changeRows(runs: readonly RolloutRun[]): Cell[][] {
  return rowsOf(CHANGE_COLUMNS, changesOf(runs));
}

export function printRollout(runs: readonly RolloutRun[]): void {
  if (runs.length === 0) return;
  const pods = runs[0]?.phases[0]?.measured.length ?? 0;
  printColumns(
    `H. Rollout through kube-apiserver: ${pods} dry-run pod creates per phase at concurrency ${ROLLOUT_CONCURRENCY}, 20 credspecs, 100 service accounts, 10 namespaces (ms)`,
    PHASE_COLUMNS,
    phasesOf(runs),
    "Each pod is created twice, for the do-nothing floor pair and for the pair measured, one after the other in the same sender: " +
      "added is the pair's latency less the floor's at the same percentile. Phases run on the same servers, started fresh: cold caches, " +
      "then warm, then a credspec edited and a grant revoked after half the creates (the other half spread over the longer TTL and 10 s). " +
      "API calls: the pair's, from the audit log. right / stale / wrong: each decision judged from the pod the API server returned; " +
      "stale is the old answer inside one cache TTL (and 2 s of grace) after the change, which the caches allow (docs/configuration.md, Caches).",
  );
  printColumns(
    "H. The change half-way through the last phase: decisions of the pods it touches (one pod in 20 each)",
    CHANGE_COLUMNS,
    changesOf(runs),
  );
}
