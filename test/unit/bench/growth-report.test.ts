import { describe, expect, it } from "vitest";
import type { GrowthStep } from "../../bench/growth.ts";
import { growthRows } from "../../bench/growth-report.ts";

const MIB = 2 ** 20;

describe("growthRows", () => {
  it("gives the calls per distinct pair and per 1,000 reviews of both functions, and memory in MiB", () => {
    const step: GrowthStep = {
      credspecs: 100,
      serviceAccounts: 10,
      reviews: 20_000,
      calls: {
        expand: { credspecReads: 100, accessReviews: 0 },
        authorize: { credspecReads: 100, accessReviews: 150 },
      },
      memory: {
        expand: { idleBytes: 70 * MIB, afterBytes: 80.25 * MIB, peakBytes: 81 * MIB },
        authorize: { idleBytes: 70 * MIB, afterBytes: 90 * MIB, peakBytes: 95.5 * MIB },
      },
      errors: 0,
      durationMs: 12_340,
    };
    expect(growthRows([step])).toEqual([
      [100, 10, 20_000, 100, "100 + 150", "3.50", "9", "70.0 / 80.3 / 81.0", "70.0 / 90.0 / 95.5", 0, "12.3"],
    ]);
  });
});
