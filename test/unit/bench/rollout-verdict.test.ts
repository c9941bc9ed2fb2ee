import { describe, expect, it } from "vitest";
import {
  EDITED_CREDSPEC,
  REVOKED_CREDSPEC,
  REVOKED_NAMESPACE,
  rolloutCredSpec,
  type RolloutPodRef,
} from "../../bench/rollout-plan.ts";
import {
  changeRows,
  countVerdicts,
  judgeCreate,
  rolloutRows,
  type ChangeWindow,
  type CreateOutcome,
} from "../../bench/rollout-verdict.ts";
import type { RolloutRun } from "../../bench/rollout.ts";

const REVOKED: RolloutPodRef = { namespace: REVOKED_NAMESPACE, serviceAccount: 4, credspec: REVOKED_CREDSPEC };
const EDITED: RolloutPodRef = {
  namespace: Math.floor(EDITED_CREDSPEC / 2),
  serviceAccount: 2,
  credspec: EDITED_CREDSPEC,
};
const UNTOUCHED: RolloutPodRef = { namespace: 5, serviceAccount: 1, credspec: 10 };

/** Change written between 1,000 and 1,100 ms; access TTL 10 s, credspec TTL 30 s, grace 2 s. */
const WINDOW: ChangeWindow = {
  startedMs: 1000,
  doneMs: 1100,
  accessTtlMs: 10_000,
  credspecTtlMs: 30_000,
  graceMs: 2000,
};

function admitted(ref: RolloutPodRef, sentMs: number, edited = false, latencyMs = 5): CreateOutcome {
  return {
    ref,
    sentMs,
    answeredMs: sentMs + latencyMs,
    status: 201,
    result: "admitted",
    inlined: rolloutCredSpec(ref.credspec, edited),
  };
}

function refused(ref: RolloutPodRef, sentMs: number): CreateOutcome {
  return { ref, sentMs, answeredMs: sentMs + 5, status: 403, result: "refused", message: "denied the request" };
}

describe("judgeCreate without a change", () => {
  it("is right only for a pod admitted with its own credspec's contents; a failed create is an error, not a decision", () => {
    expect(judgeCreate(admitted(UNTOUCHED, 0))).toBe("right");
    expect(judgeCreate({ ...admitted(UNTOUCHED, 0), inlined: rolloutCredSpec(11) })).toBe("wrong");
    expect(judgeCreate({ ...admitted(UNTOUCHED, 0), inlined: undefined })).toBe("wrong");
    expect(judgeCreate(refused(REVOKED, 0))).toBe("wrong");
    expect(judgeCreate({ ref: UNTOUCHED, sentMs: 0, answeredMs: 10_000, status: 500, result: "error" })).toBe("error");
  });
});

describe("judgeCreate across the change", () => {
  it("wants the old answer from creates answered before the change started", () => {
    expect(judgeCreate(admitted(REVOKED, 900), WINDOW)).toBe("right");
    expect(judgeCreate(refused(REVOKED, 900), WINDOW)).toBe("wrong");
    expect(judgeCreate(admitted(EDITED, 900, true), WINDOW)).toBe("wrong");
  });

  it("allows the old answer within one access TTL of a revocation, and only then", () => {
    expect(judgeCreate(admitted(REVOKED, 5000), WINDOW)).toBe("stale");
    expect(judgeCreate(refused(REVOKED, 5000), WINDOW)).toBe("right");
    expect(judgeCreate(admitted(REVOKED, 1100 + 10_000 + 2000), WINDOW)).toBe("wrong");
    expect(judgeCreate(refused(REVOKED, 1100 + 10_000 + 2000), WINDOW)).toBe("right");
  });

  it("allows old contents or a refusal within one credspec TTL of an edit, and wants the new contents after it", () => {
    expect(judgeCreate(admitted(EDITED, 20_000), WINDOW)).toBe("stale");
    expect(judgeCreate(refused(EDITED, 20_000), WINDOW)).toBe("stale");
    expect(judgeCreate(admitted(EDITED, 20_000, true), WINDOW)).toBe("right");
    expect(judgeCreate(admitted(EDITED, 1100 + 30_000 + 2000), WINDOW)).toBe("wrong");
    expect(judgeCreate(refused(EDITED, 1100 + 30_000 + 2000), WINDOW)).toBe("wrong");
    expect(judgeCreate(admitted(EDITED, 1100 + 30_000 + 2000, true), WINDOW)).toBe("right");
  });

  it("never excuses a refusal of a pod the change did not touch", () => {
    expect(judgeCreate(refused(UNTOUCHED, 5000), WINDOW)).toBe("wrong");
    expect(judgeCreate(admitted(UNTOUCHED, 5000), WINDOW)).toBe("right");
  });
});

describe("countVerdicts", () => {
  it("counts each verdict and sums up each change after it, none for a phase without a change", () => {
    const outcomes = [
      admitted(REVOKED, 500),
      admitted(REVOKED, 3000),
      admitted(REVOKED, 8000),
      refused(REVOKED, 14_000),
      refused(REVOKED, 20_000),
      admitted(EDITED, 4000),
      admitted(EDITED, 40_000, true),
      refused(UNTOUCHED, 40_000),
      { ref: UNTOUCHED, sentMs: 41_000, answeredMs: 51_000, status: 0, result: "error" as const },
    ];
    const counts = countVerdicts(outcomes, WINDOW);
    expect(counts).toMatchObject({ right: 4, stale: 3, wrong: 1, error: 1 });
    expect(counts.firstWrong).toContain("credspec 10: refused");
    expect(counts.changes).toEqual([
      { change: "revoked", after: 4, afterTtl: 2, rightAfterTtl: 2, stale: 2, lastStaleMs: 8000 - 1100 },
      { change: "edited", after: 2, afterTtl: 1, rightAfterTtl: 1, stale: 1, lastStaleMs: 4000 - 1100 },
    ]);
    expect(countVerdicts([admitted(UNTOUCHED, 0)]).changes).toEqual([]);
  });
});

function creates(latencies: readonly number[]): CreateOutcome[] {
  return latencies.map((ms, i) => admitted(UNTOUCHED, i * 100, false, ms));
}

const RUN: RolloutRun = {
  server: "gmsa-webhooks node",
  reference: false,
  settings: "caches 30 s / 10 s",
  durationMs: 3000,
  phases: [
    {
      phase: "cold",
      measured: creates([5, 6, 7, 50]),
      floor: creates([4, 4, 5, 10]),
      durationMs: 2000,
      calls: { credspecReads: 40, accessReviews: 200 },
      verdicts: {
        right: 3,
        stale: 0,
        wrong: 1,
        error: 0,
        changes: [{ change: "revoked", after: 25, afterTtl: 17, rightAfterTtl: 17, stale: 6, lastStaleMs: 8400 }],
      },
      floorErrors: 1,
    },
  ],
};

describe("the rollout's report", () => {
  it("gives per phase the floor's latency and what the pair adds to it at the same percentile", () => {
    const [cold] = rolloutRows([RUN]);
    expect(cold).toEqual([
      "gmsa-webhooks node",
      "caches 30 s / 10 s",
      "cold",
      4,
      "2",
      "4.0 / 10.0 / 10.0",
      "2.0 / 40.0 / 40.0",
      "40 + 200",
      1,
      3,
      0,
      1,
    ]);
  });

  it("gives one row per change, with the last stale answer in seconds", () => {
    expect(changeRows([RUN])).toEqual([
      ["gmsa-webhooks node", "caches 30 s / 10 s", "grant revoked: refused", 25, 6, "8.4", "17 of 17"],
    ]);
  });
});
