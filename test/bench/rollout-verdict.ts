/**
 * Whether each rollout decision was right, and section H's tables. Within one cache TTL of the change
 * (docs/configuration.md, Caches) the old answer is stale but allowed, and so is refusing an edited credspec's pod
 * (expand and authorize cache apart).
 */
import { summarize, type Summary } from "./percentiles.ts";
import { changeOf, ROLLOUT_CONCURRENCY, rolloutCredSpec, type RolloutPodRef } from "./rollout-plan.ts";
import type { RolloutPhase, RolloutRun } from "./rollout.ts";
import { fixed, printColumns, rowsOf, type Cell, type Column } from "./table.ts";

/** One create of a pod for the pair measured, as the bench saw it; times in ms on one monotonic clock. */
export interface CreateOutcome {
  ref: RolloutPodRef;
  sentMs: number;
  answeredMs: number;
  /** HTTP status of the create; 0 when the request failed in transport. */
  status: number;
  /** `admitted`: 201; `refused`: a webhook denied it; `error`: anything else. */
  result: "admitted" | "refused" | "error";
  /** The pod-level gmsaCredentialSpec of an admitted pod, parsed. */
  inlined?: unknown;
  /** The refusal or error, clipped. */
  message?: string;
}

/** When the change was made and how long each cache may keep the old answer. */
export interface ChangeWindow {
  /** Before the first write of the change. */
  startedMs: number;
  /** After the last write of the change returned. */
  doneMs: number;
  /** The access-review cache TTL: how long a revoked grant may still be honoured. */
  accessTtlMs: number;
  /** The credspec cache TTL: how long the old contents may still be inlined. */
  credspecTtlMs: number;
  /** Added to each TTL: the API server's RBAC informer, and a read started before the change answered after it. */
  graceMs: number;
}

export type Verdict = "right" | "stale" | "wrong" | "error";

/** Admitted with the credspec's contents, old or (`edited`) new: the right answer before the change (not edited). */
function admittedWith(outcome: CreateOutcome, edited: boolean): boolean {
  const expected = JSON.stringify(rolloutCredSpec(outcome.ref.credspec, edited));
  return outcome.result === "admitted" && JSON.stringify(outcome.inlined) === expected;
}

/** The answer right in the new state (after the change). */
function rightAfter(outcome: CreateOutcome): boolean {
  const change = changeOf(outcome.ref);
  return change === "revoked" ? outcome.result === "refused" : admittedWith(outcome, change === "edited");
}

/**
 * The verdict on one create. Without a change (`window` undefined) every pod must be admitted with its contents.
 * With one: answered before it started, the old answer; sent after it was done plus the TTL of the cache that
 * could hold the old answer (and the grace), the new one; in between either, the old one counted as `stale`.
 */
export function judgeCreate(outcome: CreateOutcome, window?: ChangeWindow): Verdict {
  if (outcome.result === "error") return "error";
  const change = changeOf(outcome.ref);
  if (window === undefined || change === undefined || outcome.answeredMs <= window.startedMs)
    return admittedWith(outcome, false) ? "right" : "wrong";
  const ttl = change === "revoked" ? window.accessTtlMs : window.credspecTtlMs;
  if (outcome.sentMs >= window.doneMs + ttl + window.graceMs) return rightAfter(outcome) ? "right" : "wrong";
  if (rightAfter(outcome)) return "right";
  const staleAnswer = admittedWith(outcome, false) || (change === "edited" && outcome.result === "refused");
  return staleAnswer ? "stale" : "wrong";
}

/** One change's figures over the creates after it. */
export interface ChangeFigures {
  change: "revoked" | "edited";
  /** Creates of touched pods sent after the change started. */
  after: number;
  /** Of those, sent once the TTL (and grace) had passed: all must be right. */
  afterTtl: number;
  rightAfterTtl: number;
  stale: number;
  /** The last stale answer's create was sent this long after the change was done, in ms (NaN: none). */
  lastStaleMs: number;
}

export interface VerdictCounts {
  right: number;
  stale: number;
  wrong: number;
  error: number;
  /** The first wrong decision, described, for the report. */
  firstWrong?: string;
  changes: ChangeFigures[];
}

function describe(outcome: CreateOutcome): string {
  const { namespace, serviceAccount, credspec } = outcome.ref;
  const answer =
    outcome.result === "admitted"
      ? `admitted with ${JSON.stringify(outcome.inlined)?.slice(0, 120)}`
      : `${outcome.result} (HTTP ${outcome.status}: ${outcome.message ?? ""})`;
  return `namespace ${namespace}, service account ${serviceAccount}, credspec ${credspec}: ${answer}`;
}

/** Judges every create of a phase; `window` for the phase with the change. */
export function countVerdicts(outcomes: readonly CreateOutcome[], window?: ChangeWindow): VerdictCounts {
  const counts: VerdictCounts = { right: 0, stale: 0, wrong: 0, error: 0, changes: [] };
  for (const outcome of outcomes) {
    const verdict = judgeCreate(outcome, window);
    counts[verdict]++;
    if (verdict === "wrong") counts.firstWrong ??= describe(outcome);
  }
  if (window !== undefined) {
    for (const change of ["revoked", "edited"] as const) {
      const ttl = change === "revoked" ? window.accessTtlMs : window.credspecTtlMs;
      const touched = outcomes.filter((o) => changeOf(o.ref) === change && o.answeredMs > window.startedMs);
      const afterTtl = touched.filter((o) => o.sentMs >= window.doneMs + ttl + window.graceMs);
      const stale = touched.filter((o) => judgeCreate(o, window) === "stale");
      counts.changes.push({
        change,
        after: touched.length,
        afterTtl: afterTtl.length,
        rightAfterTtl: afterTtl.filter((o) => judgeCreate(o, window) === "right").length,
        stale: stale.length,
        lastStaleMs: stale.length === 0 ? Number.NaN : Math.max(...stale.map((o) => o.sentMs - window.doneMs)),
      });
    }
  }
  return counts;
}

/** Latency of creates, in ms (answered less sent). */
function createLatency(outcomes: readonly CreateOutcome[]): Summary {
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
