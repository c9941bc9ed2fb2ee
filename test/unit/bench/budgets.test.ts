import { describe, expect, it } from "vitest";
import { judgeBudgets, judgeResidentMemory } from "../../bench/budgets.ts";
import type { RunFigures } from "../../bench/figures.ts";

function run(parts: Partial<RunFigures>): RunFigures {
  return { bundles: [], coldStarts: [], phases: [], frugal: [], reviewTrials: [], ...parts };
}

function row(figures: RunFigures, figure: string) {
  return judgeBudgets(figures).find((r) => r.figure.startsWith(figure));
}

describe("judgeResidentMemory", () => {
  it("meets the budget at 75 MiB idle, 100 MiB after the rounds and 2 MiB over the last round", () => {
    expect(judgeResidentMemory({ idle: 75, afterLoad: 100, growth: 2 })).toBe("met");
    expect(judgeResidentMemory({ idle: 70, afterLoad: 90, growth: -3 })).toBe("met");
  });

  it("is not met when any of the three is over", () => {
    expect(judgeResidentMemory({ idle: 75.1, afterLoad: 90, growth: 0 })).toBe("NOT MET");
    expect(judgeResidentMemory({ idle: 70, afterLoad: 100.1, growth: 0 })).toBe("NOT MET");
    expect(judgeResidentMemory({ idle: 70, afterLoad: 90, growth: 2.1 })).toBe("NOT MET");
  });

  it("is not measured without figures", () => {
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
    const perSecond = (v: number) => ({
      concurrency: 16,
      warmupRequests: 0,
      requests: 1,
      errors: 0,
      durationMs: 1,
      perSecond: v,
      latencyMs: { count: 1, p50: 1, p99: 1, mean: 1, max: 1 },
    });
    const ours = [perSecond(3000), perSecond(2000), perSecond(2500)];
    const figures = run({
      reviewTrials: [
        { fn: "expand", containers: 1, ours },
        { fn: "authorize", containers: 1, ours },
      ],
    });
    expect(row(figures, "reviews per second")).toMatchObject({ ours: "2,500 / 2,500", verdict: "needs GMSA_REF_BIN" });
  });
});
