import { describe, expect, it } from "vitest";
import { parseAdmissionReview, type AdmissionRequest } from "../../../../shared/admission/review.ts";
import { readReview } from "../../../../shared/policy/facts.ts";
import { buildPod } from "../../../support/pods.ts";
import { buildReview, type ReviewOptions } from "../../../support/reviews.ts";

function requestOf(object: unknown, options: ReviewOptions = {}): AdmissionRequest {
  const result = parseAdmissionReview(buildReview(object, options));
  if (!result.ok) throw new Error(result.problem);
  return result.value.request;
}

describe("readReview", () => {
  it("reads a create: the pod, the namespace and the requester", () => {
    const pod = buildPod({ name: "new" });
    const userInfo = { username: "alice", uid: "u-1", groups: ["devs"], extra: { scopes: ["debug"] } };
    expect(readReview(requestOf(pod, { namespace: "team-a", userInfo }))).toEqual({
      object: "pod",
      operation: "CREATE",
      namespace: "team-a",
      pod,
      requester: userInfo,
    });
  });

  it("reads an update: both pods and the subresource", () => {
    const review = readReview(
      requestOf(buildPod({ name: "new" }), {
        operation: "UPDATE",
        subResource: "ephemeralcontainers",
        oldObject: buildPod({ name: "old" }),
      }),
    );
    expect(review).toMatchObject({
      operation: "UPDATE",
      subResource: "ephemeralcontainers",
      pod: { metadata: { name: "new" } },
      oldPod: { metadata: { name: "old" } },
    });
  });

  it("takes the namespace from the request, else the pod, else default; and no requester without a username", () => {
    const request = requestOf(buildPod({ namespace: "from-pod" }), { userInfo: { username: "" } });
    expect(readReview({ ...request, namespace: undefined })).toMatchObject({
      namespace: "from-pod",
      requester: undefined,
    });
    expect(readReview({ ...request, namespace: undefined, object: { spec: {} } })).toMatchObject({
      namespace: "default",
    });
  });

  it.each([
    ["a missing object", () => requestOf(null), "request.object is missing"],
    [
      "a missing oldObject on UPDATE",
      () => requestOf(buildPod(), { operation: "UPDATE" }),
      "request.oldObject is missing",
    ],
    [
      "a container name used twice",
      () => requestOf(buildPod({ containers: [{ name: "app" }], initContainers: [{ name: "app" }] })),
      'container name "app" is used more than once',
    ],
  ] as const)("reads %s as an invalid review (400) naming the field", (_what, request, problem) => {
    const review = readReview(request());
    expect(review.object).toBe("invalid");
    if (review.object !== "invalid") return;
    expect([review.error.code, review.error.status]).toEqual(["ERR_INVALID_REVIEW", 400]);
    expect(review.error.message).toContain(problem);
  });

  it("reads a Pod of another group as another kind, without reading the object", () => {
    const kind = { group: "apps", version: "v1", kind: "Pod" };
    expect(readReview(requestOf("not a pod", { kind }))).toEqual({ object: "other", ...kind });
  });

  it("reads a CONNECT as the pod it names, the subresource and the requester; its object (PodExecOptions) is not the pod", () => {
    const userInfo = { username: "alice", groups: ["devs"] };
    const options = { apiVersion: "v1", kind: "PodExecOptions", command: ["cmd"], container: "app" };
    const kind = { group: "", version: "v1", kind: "PodExecOptions" };
    expect(readReview(requestOf(options, { operation: "CONNECT", subResource: "exec", kind, userInfo }))).toEqual({
      object: "pod",
      operation: "CONNECT",
      subResource: "exec",
      namespace: "ns1",
      name: "web",
      requester: userInfo,
    });
  });
});

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
