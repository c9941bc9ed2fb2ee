import { describe, expect, it } from "vitest";
import { isEphemeralContainersUpdate, otherKindWarning, readPod } from "../../../../shared/admission/request.ts";
import { parseAdmissionReview, type AdmissionRequest } from "../../../../shared/admission/review.ts";
import { InvalidReviewError } from "../../../../shared/errors.ts";
import { buildPod } from "../../../support/pods.ts";
import { buildReview, type ReviewOptions } from "../../../support/reviews.ts";

function requestOf(object: unknown, options: ReviewOptions = {}): AdmissionRequest {
  const result = parseAdmissionReview(buildReview(object, options));
  if (!result.ok) throw new Error(result.problem);
  return result.value.request;
}

describe("readPod", () => {
  it("reads object and oldObject", () => {
    const request = requestOf(buildPod({ name: "new" }), { operation: "UPDATE", oldObject: buildPod({ name: "old" }) });
    expect(readPod(request).metadata?.name).toBe("new");
    expect(readPod(request, "oldObject").metadata?.name).toBe("old");
  });

  it("throws InvalidReviewError (400) when the object is missing or malformed", () => {
    expect(() => readPod(requestOf(null))).toThrow(InvalidReviewError);
    expect(() => readPod(requestOf(buildPod()), "oldObject")).toThrow(/request\.oldObject is missing/);
    const error = (() => {
      try {
        readPod(requestOf({ spec: { containers: "x" } }));
      } catch (e) {
        return e as InvalidReviewError;
      }
    })();
    expect([error?.code, error?.status]).toEqual(["ERR_INVALID_REVIEW", 400]);
    expect(error?.message).toContain("request.object");
  });
});

describe("isEphemeralContainersUpdate", () => {
  it("is true only for UPDATE of pods/ephemeralcontainers", () => {
    expect(isEphemeralContainersUpdate(requestOf(buildPod(), { operation: "UPDATE", subResource: "ephemeralcontainers" }))).toBe(true);
    expect(isEphemeralContainersUpdate(requestOf(buildPod(), { operation: "UPDATE" }))).toBe(false);
    expect(isEphemeralContainersUpdate(requestOf(buildPod(), { operation: "UPDATE", subResource: "status" }))).toBe(false);
    expect(isEphemeralContainersUpdate(requestOf(buildPod(), { operation: "CREATE", subResource: "ephemeralcontainers" }))).toBe(false);
  });
});

describe("otherKindWarning", () => {
  it("names the group, version and kind", () => {
    expect(otherKindWarning(requestOf({}, { kind: { group: "apps", version: "v1", kind: "Deployment" } }))).toContain("apps/v1 Deployment");
    expect(otherKindWarning(requestOf({}, { kind: { group: "", version: "v1", kind: "ConfigMap" } }))).toContain("core/v1 ConfigMap");
  });
});
