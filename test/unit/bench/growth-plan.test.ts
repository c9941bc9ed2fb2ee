import { describe, expect, it } from "vitest";
import type { GrowthStep } from "../../bench/growth.ts";
import {
  growthGrantObjects,
  growthRows,
  growthPairOrder,
  growthServiceAccount,
  growthServiceAccounts,
} from "../../bench/growth-plan.ts";

describe("growthPairOrder", () => {
  it("names every pair once in its first credspecs reviews, then draws among them", () => {
    const order = growthPairOrder(1000, 20_000);
    expect(new Set(order.subarray(0, 1000)).size).toBe(1000);
    expect(Math.max(...order)).toBeLessThan(1000);
    expect(new Set(order.subarray(1000)).size).toBeGreaterThan(900);
  });

  it("is the same for the same seed, another for another, and shorter than the pairs when fewer reviews are asked for", () => {
    expect(growthPairOrder(100, 500)).toEqual(growthPairOrder(100, 500));
    expect(growthPairOrder(100, 500, 1)).not.toEqual(growthPairOrder(100, 500));
    const order = growthPairOrder(10_000, 10);
    expect(order).toHaveLength(10);
    expect(new Set(order).size).toBe(10);
  });
});

describe("the growth's service accounts and grant", () => {
  it("put ten credspecs on each service account, and grant exactly the step's credspecs", () => {
    expect(growthServiceAccount(9)).toBe(growthServiceAccount(0));
    expect(growthServiceAccount(10)).not.toBe(growthServiceAccount(9));
    expect(growthServiceAccounts(10_000)).toBe(1000);
    const role = growthGrantObjects(100).find((o) => o.kind === "ClusterRole")!;
    expect((role["rules"] as { resourceNames: string[] }[])[0]!.resourceNames).toHaveLength(100);
  });
});

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
