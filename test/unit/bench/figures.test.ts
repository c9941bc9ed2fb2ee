import { describe, expect, it } from "vitest";
import { judgeBudgets, judgeResidentMemory } from "../../bench/budgets.ts";
import type { FrugalFigures } from "../../bench/frugal.ts";
import {
  lastRoundGrowthBytes,
  podCreateAdded,
  residentMiB,
  reviewsPerSecond,
  reviewsPerSecondRatio,
  type RunFigures,
} from "../../bench/figures.ts";
import type { LoadResult } from "../../bench/load.ts";
import type { PodCreatePair } from "../../bench/pod-create.ts";

const MIB = 2 ** 20;

function load(perSecond: number, p50 = 1): LoadResult {
  const latencyMs = { count: 1, p50, p99: p50, mean: p50, max: p50 };
  return { concurrency: 16, warmupRequests: 0, requests: 1, errors: 0, durationMs: 1, perSecond, latencyMs };
}

function run(parts: Partial<RunFigures>): RunFigures {
  return { bundles: [], coldStarts: [], phases: [], frugal: [], reviewTrials: [], ...parts };
}

function frugal(server: string, idleMiB: number, roundsMiB: number[]): FrugalFigures {
  return {
    server,
    fn: "expand",
    idleRssBytes: idleMiB * MIB,
    roundRssBytes: roundsMiB.map((m) => m * MIB),
    peakRssBytes: 0,
    idleFileBackedBytes: 0,
    fileBackedBytes: 0,
    roundCpuMicrosPerReview: [],
    roundPerSecond: [],
    reviews: 60_000,
    errors: 0,
  };
}

describe("reviewsPerSecond and reviewsPerSecondRatio", () => {
  const figures = run({
    reviewTrials: [
      {
        fn: "expand",
        containers: 1,
        ours: [load(3000), load(2000), load(2600)],
        go: [load(1000), load(500), load(1000)],
      },
    ],
  });

  it("reads the median of each side's trials, and judges the median of the ratios of trials that alternated", () => {
    expect(reviewsPerSecond(figures, "node", "expand", 1)).toBe(2600);
    expect(reviewsPerSecond(figures, "reference", "expand", 1)).toBe(1000);
    expect(reviewsPerSecond(figures, "node", "expand", 10)).toBeUndefined();
    // 3.0x, 4.0x, 2.6x
    expect(reviewsPerSecondRatio(figures, "expand", 1)).toBe(3);
  });

  it("has no ratio without the reference's trials", () => {
    const alone = run({ reviewTrials: [{ fn: "expand", containers: 1, ours: [load(3000), load(2000), load(2600)] }] });
    expect(reviewsPerSecond(alone, "node", "expand", 1)).toBe(2600);
    expect(reviewsPerSecondRatio(alone, "expand", 1)).toBeUndefined();
  });
});

describe("podCreateAdded", () => {
  const pair = (withoutMs: number, withMs: number): PodCreatePair => ({
    without: load(0, withoutMs),
    with: load(0, withMs),
  });

  it("gives the medians of the rounds and the median of the round-by-round ratios, none without rounds", () => {
    const added = podCreateAdded({
      // added 2, 4, 3; the floor's 2, 2, 1: ratios 1, 2, 3
      webhooks: [pair(10, 12), pair(10, 14), pair(10, 13)],
      floor: [pair(10, 12), pair(10, 12), pair(10, 11)],
    });
    expect(added).toEqual({ added: 3, floor: 2, ratio: 2, rounds: 3 });
    expect(podCreateAdded({ webhooks: [], floor: [] })).toBeUndefined();
  });
});

describe("residentMiB", () => {
  it("judges growth from the round before the last to the last, after the heap's warm-up step; none over one round", () => {
    // A step of 8 MiB in the first rounds, then 1 MiB.
    const figures = run({ frugal: [frugal("ours", 70, [80, 88, 89])] });
    expect(residentMiB(figures, "ours")).toEqual({ idle: 70, afterLoad: 89, growth: 1 });
    expect(lastRoundGrowthBytes(frugal("ours", 70, [80]))).toBe(0);
  });

  it("takes the largest of the functions", () => {
    const figures = run({
      frugal: [frugal("ours", 70, [80, 81, 81.5]), { ...frugal("ours", 72, [82, 83, 86]), fn: "authorize" }],
    });
    expect(residentMiB(figures, "ours")).toEqual({ idle: 72, afterLoad: 86, growth: 3 });
  });
});

function row(figures: RunFigures, figure: string) {
  return judgeBudgets(figures).find((r) => r.figure.startsWith(figure));
}

describe("judgeResidentMemory", () => {
  it("meets the budget at 75 MiB idle, 100 MiB after the rounds and 2 MiB over the last round", () => {
    expect(judgeResidentMemory({ idle: 75, afterLoad: 100, growth: 2 })).toBe("met");
    expect(judgeResidentMemory({ idle: 70, afterLoad: 90, growth: -3 })).toBe("met");
  });

  it("is not met when any of the three is over, and not measured without figures", () => {
    expect(judgeResidentMemory({ idle: 75.1, afterLoad: 90, growth: 0 })).toBe("NOT MET");
    expect(judgeResidentMemory({ idle: 70, afterLoad: 100.1, growth: 0 })).toBe("NOT MET");
    expect(judgeResidentMemory({ idle: 70, afterLoad: 90, growth: 2.1 })).toBe("NOT MET");
    expect(judgeResidentMemory(undefined)).toBe("not measured");
  });
});

describe("judgeBudgets", () => {
  it("judges the webhook code without the CLI, and shows the CLI apart", () => {
    const source = row(run({ sourceLines: 6_750, cliSourceLines: 2_844 }), "webhook code");
    expect(source?.verdict).toBe("met");
    expect(source?.ours).toContain("2,844 in cli/, not judged");
    expect(row(run({ sourceLines: 6_751 }), "webhook code")?.verdict).toBe("NOT MET");
  });

  it("holds test lines under 26,500", () => {
    expect(row(run({ testLines: 26_499 }), "test lines")?.verdict).toBe("met");
    expect(row(run({ testLines: 26_500 }), "test lines")?.verdict).toBe("NOT MET");
  });

  it("holds each function's files a warm review crosses to 12", () => {
    const files = (n: number) => Array.from({ length: n }, (_, i) => `shared/${i}.ts`);
    const met = row(run({ reviewFiles: { authorize: files(12), expand: files(11) } }), "files a warm");
    expect(met).toMatchObject({ ours: "12 / 11", verdict: "met" });
    expect(row(run({ reviewFiles: { authorize: files(13), expand: files(11) } }), "files a warm")?.verdict).toBe(
      "NOT MET",
    );
  });

  it("leaves the ratio rows to GMSA_REF_BIN when only our trials ran", () => {
    const ours = [load(3000), load(2000), load(2500)];
    const figures = run({
      reviewTrials: [
        { fn: "expand", containers: 1, ours },
        { fn: "authorize", containers: 1, ours },
      ],
    });
    expect(row(figures, "reviews per second")).toMatchObject({ ours: "2,500 / 2,500", verdict: "needs GMSA_REF_BIN" });
  });
});
