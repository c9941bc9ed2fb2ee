import { describe, expect, it } from "vitest";
import { changeRows, createLatency, rolloutRows } from "../../bench/rollout-report.ts";
import type { RolloutRun } from "../../bench/rollout.ts";
import type { CreateOutcome } from "../../bench/rollout-verdict.ts";

const REF = { namespace: 1, serviceAccount: 1, credspec: 2 };

/** Creates taking `latencies` ms each. */
function creates(latencies: readonly number[]): CreateOutcome[] {
  return latencies.map((ms, i) => ({
    ref: REF,
    sentMs: i * 100,
    answeredMs: i * 100 + ms,
    status: 201,
    result: "admitted",
  }));
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
      verdicts: { right: 3, stale: 0, wrong: 1, error: 0, changes: [] },
      floorErrors: 1,
    },
    {
      phase: "change",
      measured: creates([5]),
      floor: creates([4]),
      durationMs: 1000,
      calls: { credspecReads: 2, accessReviews: 3 },
      verdicts: {
        right: 1,
        stale: 0,
        wrong: 0,
        error: 0,
        changes: [{ change: "revoked", after: 25, afterTtl: 17, rightAfterTtl: 17, stale: 6, lastStaleMs: 8400 }],
      },
      floorErrors: 0,
    },
  ],
};

describe("the rollout's report", () => {
  it("summarizes a create's latency as answered less sent", () => {
    expect(createLatency(creates([3, 1, 2]))).toMatchObject({ count: 3, p50: 2, max: 3 });
  });

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
