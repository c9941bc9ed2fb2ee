import { describe, expect, it } from "vitest";
import {
  growthGrantObjects,
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
