import { describe, expect, it } from "vitest";
import { parseAdmissionReview } from "../../../../shared/admission/review.ts";
import { buildPod } from "../../../support/pods.ts";
import { buildReview } from "../../../support/reviews.ts";

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
