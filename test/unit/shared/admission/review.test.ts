import { describe, expect, it } from "vitest";
import { parseAdmissionReview, type AdmissionRequest } from "../../../../shared/admission/review.ts";
import { readReview } from "../../../../shared/policy/facts.ts";
import { buildPod } from "../../../support/pods.ts";
import { buildReview, type ReviewOptions } from "../../../support/reviews.ts";

describe("parseAdmissionReview", () => {
  it.each(["admission.k8s.io/v1", "admission.k8s.io/v1beta1"] as const)(
    "accepts an %s review and keeps unknown fields",
    (apiVersion) => {
      const result = parseAdmissionReview(buildReview(buildPod(), { apiVersion }));
      expect(result.ok).toBe(true);
      if (!result.ok) return;
      expect(result.value.apiVersion).toBe(apiVersion);
      expect(result.value.request.operation).toBe("CREATE");
      expect(result.value.request).toHaveProperty("userInfo");
    },
  );

  it.each([
    { what: "another apiVersion", change: { apiVersion: "admission.k8s.io/v2" }, path: "apiVersion" },
    { what: "another kind", change: { kind: "Pod" }, path: "kind" },
    { what: "no request", change: { request: undefined }, path: "request" },
    { what: "an empty uid", change: { request: { ...request(), uid: "" } }, path: "request.uid" },
    {
      what: "an unknown operation",
      change: { request: { ...request(), operation: "PATCH" } },
      path: "request.operation",
    },
    {
      what: "a kind without group",
      change: { request: { ...request(), kind: { version: "v1", kind: "Pod" } } },
      path: "request.kind.group",
    },
  ])("refuses $what, naming the field", ({ change, path }) => {
    const result = parseAdmissionReview({ ...buildReview(buildPod()), ...change });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problem.startsWith(path)).toBe(true);
  });

  it.each([null, "text", 42, []])("refuses %j", (body) => {
    expect(parseAdmissionReview(body).ok).toBe(false);
  });
});

function request(): Record<string, unknown> {
  return buildReview(buildPod()).request as Record<string, unknown>;
}

function requestOf(object: unknown, options: ReviewOptions = {}): AdmissionRequest {
  const result = parseAdmissionReview(buildReview(object, options));
  if (!result.ok) throw new Error(result.problem);
  return result.value.request;
}

describe("readReview: the pod's schema", () => {
  it("accepts a pod and passes every other field through", () => {
    const pod = buildPod({ containers: [{ name: "app", ports: [{ containerPort: 80 }] }] });
    const review = readReview(requestOf(pod));
    expect(review.object === "pod" && review.operation === "CREATE" && review.pod).toEqual(pod);
  });

  it.each([
    {
      what: "a numeric credspec name",
      pod: { spec: { securityContext: { windowsOptions: { gmsaCredentialSpecName: 1 } } } },
    },
    { what: "a container without name", pod: { spec: { containers: [{}] } } },
    { what: "containers that are not a list", pod: { spec: { containers: {} } } },
    { what: "a non-string annotation", pod: { metadata: { annotations: { a: 1 } } } },
  ])("refuses $what (400), naming request.object or request.oldObject", ({ pod }) => {
    const asObject = readReview(requestOf(pod));
    const asOldObject = readReview(requestOf(buildPod(), { operation: "UPDATE", oldObject: pod }));
    expect(asObject.object === "invalid" && [asObject.error.status, asObject.error.message]).toEqual([
      400,
      expect.stringMatching(/^request\.object: /),
    ]);
    expect(asOldObject.object === "invalid" && asOldObject.error.message).toMatch(/^request\.oldObject: /);
  });
});
