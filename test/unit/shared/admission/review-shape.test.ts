import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isPlainAdmissionReview, isPlainPod } from "../../../../shared/admission/review-shape.ts";
import { AdmissionReviewSchema, parseAdmissionReview, parsePod, PodSchema } from "../../../../shared/admission/review.ts";
import { buildReview } from "../../../support/reviews.ts";

const gmsaPod = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p", namespace: "ns", annotations: { a: "b" }, labels: { app: "x" } },
  spec: {
    serviceAccountName: "sa",
    securityContext: { windowsOptions: { gmsaCredentialSpecName: "c", hostProcess: false } },
    containers: [{ name: "app", image: "i", securityContext: { windowsOptions: { gmsaCredentialSpec: "{}", runAsUserName: "u" } } }],
    initContainers: [{ name: "init" }],
  },
};

/** A JSON-like value that may or may not have the shape: the checks must never accept what zod would refuse or change. */
const jsonish = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.constantFrom(null, true, 1, "", "x", "CREATE", "admission.k8s.io/v1", "AdmissionReview"),
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(
      fc.constantFrom("apiVersion", "kind", "request", "uid", "operation", "group", "version", "metadata", "spec", "name", "containers", "securityContext", "windowsOptions", "gmsaCredentialSpecName", "hostProcess", "annotations", "userInfo", "groups", "extra", "dryRun", "other"),
      tie("value"),
      { maxKeys: 5 },
    ),
  ),
})).value;

/** Weighs the right-typed choice of a field over any other value. */
const likely = <T>(arbitrary: fc.Arbitrary<T>) => ({ arbitrary, weight: 6 });

/** Requests near the schema: each field of the right type or of any other. */
const nearRequest = fc.record(
  {
    uid: fc.oneof(likely(fc.constantFrom("", "u", "x".repeat(257))), jsonish),
    kind: fc.oneof(likely(fc.constant({ group: "", version: "v1", kind: "Pod" })), jsonish),
    operation: fc.oneof(likely(fc.constantFrom("CREATE", "UPDATE", "PATCH")), jsonish),
    name: fc.oneof(likely(fc.string({ maxLength: 3 })), jsonish),
    dryRun: fc.oneof(likely(fc.boolean()), jsonish),
    object: jsonish,
    userInfo: fc.oneof(
      fc.record(
        {
          username: fc.oneof(likely(fc.string({ maxLength: 3 })), jsonish),
          groups: fc.oneof(likely(fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 })), jsonish),
          extra: fc.oneof(likely(fc.dictionary(fc.string({ maxLength: 3 }), fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }), { maxKeys: 2 })), jsonish),
        },
        { requiredKeys: [] },
      ),
      jsonish,
    ),
  },
  { requiredKeys: [] },
);

interface JsonReview {
  apiVersion: string;
  request: Record<string, unknown> & { kind: Record<string, unknown> };
}

/** A review as it arrives: decoded JSON. */
function decodedReview(options: Parameters<typeof buildReview>[1] = {}): JsonReview {
  return JSON.parse(JSON.stringify(buildReview(gmsaPod, options))) as JsonReview;
}

describe("the fast shape checks of AdmissionReviews and pods", () => {
  it("accept a real review and pod, and parsing them gives what zod gives", () => {
    const review = decodedReview({ userInfo: { username: "u", groups: ["g"], extra: { k: ["v"] } } });
    expect(isPlainAdmissionReview(review)).toBe(true);
    expect(isPlainPod(gmsaPod)).toBe(true);
    expect(parseAdmissionReview(review)).toEqual({ ok: true, value: { apiVersion: review.apiVersion, request: review.request } });
    expect(parsePod(gmsaPod, "object")).toEqual({ ok: true, value: gmsaPod });
  });

  it("leave to zod what it would refuse or change: wrong types, explicit undefined, extra keys in the kind", () => {
    const review = decodedReview();
    expect(isPlainAdmissionReview({ ...review, request: { ...review.request, uid: 7 } })).toBe(false);
    expect(isPlainAdmissionReview({ ...review, request: { ...review.request, name: undefined } })).toBe(false);
    expect(isPlainAdmissionReview({ ...review, request: { ...review.request, kind: { ...review.request.kind, extra: "x" } } })).toBe(false);
    expect(isPlainPod({ spec: { containers: [{ name: "a", securityContext: { windowsOptions: { hostProcess: "yes" } } }] } })).toBe(false);
    expect(isPlainPod({ metadata: { annotations: { a: 1 } } })).toBe(false);
    expect(isPlainPod([])).toBe(false);
  });

  it("never accept a value zod refuses or changes", () => {
    let accepted = 0;
    fc.assert(
      fc.property(jsonish, jsonish, nearRequest, (value, other, request) => {
        const envelope = { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request };
        for (const candidate of [value, envelope, { metadata: value, spec: other }]) {
          if (isPlainAdmissionReview(candidate)) {
            accepted++;
            expect(AdmissionReviewSchema.safeParse(candidate)).toEqual({ success: true, data: candidate });
          }
          if (isPlainPod(candidate)) expect(PodSchema.safeParse(candidate)).toEqual({ success: true, data: candidate });
        }
      }),
      { numRuns: 3000 },
    );
    // The property must have been exercised, not only the fallback.
    expect(accepted).toBeGreaterThan(100);
  });
});
