/** Section H's tables (rollout.ts): per pair and phase, and the change of the last phase. */
import { summarize, type Summary } from "./percentiles.ts";
import type { RolloutRun } from "./rollout.ts";
import type { CreateOutcome } from "./rollout-verdict.ts";
import { fixed, printTable, type Cell } from "./table.ts";

/** Latency of creates, in ms (answered less sent). */
export function createLatency(outcomes: readonly CreateOutcome[]): Summary {
  return summarize(outcomes.map((o) => o.answeredMs - o.sentMs));
}

/** One row per pair and phase. */
export function rolloutRows(runs: readonly RolloutRun[]): Cell[][] {
  return runs.flatMap((run) =>
    run.phases.map((p) => {
      const floor = createLatency(p.floor);
      const measured = createLatency(p.measured);
      return [
        run.server,
        run.settings,
        p.phase,
        p.measured.length,
        fixed((p.measured.length * 1000) / p.durationMs),
        `${fixed(floor.p50, 1)} / ${fixed(floor.p99, 1)} / ${fixed(floor.max, 1)}`,
        `${fixed(measured.p50 - floor.p50, 1)} / ${fixed(measured.p99 - floor.p99, 1)} / ${fixed(measured.max - floor.max, 1)}`,
        `${p.calls.credspecReads} + ${p.calls.accessReviews}`,
        p.verdicts.error + p.floorErrors,
        p.verdicts.right,
        p.verdicts.stale,
        p.verdicts.wrong,
      ];
    }),
  );
}

/** One row per pair and change (the last phase). */
export function changeRows(runs: readonly RolloutRun[]): Cell[][] {
  return runs.flatMap((run) =>
    run.phases.flatMap((p) =>
      p.verdicts.changes.map((c) => [
        run.server,
        run.settings,
        c.change === "revoked" ? "grant revoked: refused" : "credspec edited: new contents",
        c.after,
        c.stale,
        fixed(c.lastStaleMs / 1000, 1),
        `${c.rightAfterTtl} of ${c.afterTtl}`,
      ]),
    ),
  );
}

export function printRollout(runs: readonly RolloutRun[], concurrency: number): void {
  if (runs.length === 0) return;
  const pods = runs[0]?.phases[0]?.measured.length ?? 0;
  printTable(
    `H. Rollout through kube-apiserver: ${pods} dry-run pod creates per phase at concurrency ${concurrency}, 20 credspecs, 100 service accounts, 10 namespaces (ms)`,
    [
      "webhooks",
      "caches / limiter",
      "phase",
      "creates",
      "creates/s",
      "floor p50 / p99 / max",
      "added p50 / p99 / max",
      "API calls: reads + access reviews",
      "errors",
      "right",
      "stale",
      "wrong",
    ],
    rolloutRows(runs),
    "Each pod is created twice, for the do-nothing floor pair and for the pair measured, one after the other in the same sender: " +
      "added is the pair's latency less the floor's at the same percentile. Phases run on the same servers, started fresh: cold caches, " +
      "then warm, then a credspec edited and a grant revoked after half the creates (the other half spread over the longer TTL and 10 s). " +
      "API calls: the pair's, from the audit log. right / stale / wrong: each decision judged from the pod the API server returned; " +
      "stale is the old answer inside one cache TTL (and 2 s of grace) after the change, which the caches allow (docs/configuration.md, Caches).",
  );
  printTable(
    "H. The change half-way through the last phase: decisions of the pods it touches (one pod in 20 each)",
    [
      "webhooks",
      "caches / limiter",
      "change",
      "creates after it",
      "stale",
      "last stale sent at (s after the change)",
      "right once a TTL had passed",
    ],
    changeRows(runs),
  );
}
