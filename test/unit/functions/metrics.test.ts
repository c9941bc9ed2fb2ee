import { describe, expect, it } from "vitest";
import { createReviewCounters } from "../../../functions/metrics.ts";

describe("createReviewCounters", () => {
  it("counts reviews by function and outcome", () => {
    const counters = createReviewCounters();
    counters.record("expand", true, undefined);
    counters.record("authorize", false, 403);
    counters.record("authorize", false, 403);
    counters.record("authorize", false, undefined);
    expect(counters.snapshot()).toEqual({
      expand_reviews_total: 1,
      expand_allowed_total: 1,
      authorize_reviews_total: 3,
      authorize_denied_403_total: 2,
      authorize_denied_0_total: 1,
    });
  });
});
