import { describe, expect, it } from "vitest";
import { createJsonMetrics } from "../../../functions/metrics.ts";

describe("createJsonMetrics", () => {
  it("counts reviews by function and outcome", () => {
    const metrics = createJsonMetrics();
    metrics.reviews.record("expand", true, undefined);
    metrics.reviews.record("authorize", false, 403);
    metrics.reviews.record("authorize", false, 403);
    metrics.reviews.record("authorize", false, undefined);
    expect(metrics.snapshot()).toEqual({
      expand_reviews_total: 1,
      expand_allowed_total: 1,
      authorize_reviews_total: 3,
      authorize_denied_403_total: 2,
      authorize_denied_0_total: 1,
    });
  });
});
