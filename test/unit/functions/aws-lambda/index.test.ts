import { afterEach, describe, expect, it, vi } from "vitest";
import type { AdmissionReviewResponse } from "../../../../shared/admission/review.ts";
import { buildPod } from "../../../support/pods.ts";
import { buildReview } from "../../../support/reviews.ts";
import { CALLER_TOKEN, serverlessEnv } from "../../../support/serverless-env.ts";
import { functionUrlEvent } from "../../../support/lambda-events.ts";

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

describe("the Lambda entry (index.handler)", () => {
  it("builds from process.env at load and answers a review and /healthz", async () => {
    for (const [name, value] of Object.entries(await serverlessEnv())) vi.stubEnv(name, value);
    const stdout = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    const { handler } = await import("../../../../functions/aws-lambda/index.ts");
    const review = functionUrlEvent({
      method: "POST",
      path: "/expand",
      headers: { "content-type": "application/json", authorization: `Bearer ${CALLER_TOKEN}` },
      body: JSON.stringify(buildReview(buildPod(), { uid: "uid-entry" })),
    });
    const result = await handler(review);
    expect(result.statusCode).toBe(200);
    expect((JSON.parse(result.body) as AdmissionReviewResponse).response).toMatchObject({
      uid: "uid-entry",
      allowed: true,
    });
    expect(await handler(functionUrlEvent({ method: "GET", path: "/healthz" }))).toMatchObject({
      statusCode: 200,
      body: "ok",
    });
    // One JSON log line for the review, on stdout, as CloudWatch collects it.
    expect(stdout.mock.calls.map(([line]) => String(line)).join("")).toContain('"uid":"uid-entry"');
  });
});
