/**
 * Whether each rollout decision was right. Within one cache TTL of the change (docs/configuration.md, Caches) the old
 * answer is stale but allowed, and so is refusing an edited credspec's pod (expand and authorize cache apart).
 */
import { changeOf, rolloutCredSpec, type RolloutPodRef } from "./rollout-plan.ts";

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

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function admittedWith(outcome: CreateOutcome, edited: boolean): boolean {
  return outcome.result === "admitted" && sameJson(outcome.inlined, rolloutCredSpec(outcome.ref.credspec, edited));
}

/** The answer right in the old state (before the change) and in the new one (after it). */
function rightBefore(outcome: CreateOutcome): boolean {
  return admittedWith(outcome, false);
}

function rightAfter(outcome: CreateOutcome): boolean {
  switch (changeOf(outcome.ref)) {
    case "revoked":
      return outcome.result === "refused";
    case "edited":
      return admittedWith(outcome, true);
    default:
      return admittedWith(outcome, false);
  }
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
    return rightBefore(outcome) ? "right" : "wrong";
  const ttl = change === "revoked" ? window.accessTtlMs : window.credspecTtlMs;
  if (outcome.sentMs >= window.doneMs + ttl + window.graceMs) return rightAfter(outcome) ? "right" : "wrong";
  if (rightAfter(outcome)) return "right";
  const staleAnswer = rightBefore(outcome) || (change === "edited" && outcome.result === "refused");
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
