import { describe, expect, it } from "vitest";
import { AdmissionError } from "../../../../shared/errors.ts";
import type { Pod } from "../../../../shared/admission/review.ts";
import { decideAuthorize, planAuthorize, planPodRead } from "../../../../shared/policy/authorize.ts";
import type { PolicySettings } from "../../../../shared/policy/facts.ts";
import { podWithGmsaAt, PLACES } from "../../../support/pods.ts";
import { ALICE, connect, expectDenied, load, type World } from "./review-facts.ts";

const settings = (requestingUser: PolicySettings["requestingUser"]) => ({
  requestingUser,
  enforcement: "deny" as const,
});

function authorize(
  review: ReturnType<typeof connect>,
  world: World,
  requestingUser: PolicySettings["requestingUser"] = "ephemeral",
) {
  const plan = planAuthorize(review, settings(requestingUser));
  return { plan, decision: decideAuthorize(plan, load(plan.load, world)) };
}

describe("exec and attach under REVIEW_REQUESTING_USER", () => {
  it.each(["exec", "attach"])("reads the pod of a %s only when the mode reviews the requester", (subResource) => {
    expect(planPodRead(connect(subResource), settings("off"))).toBeUndefined();
    for (const mode of ["ephemeral", "always"] as const)
      expect(planPodRead(connect(subResource), settings(mode))).toEqual({ namespace: "ns1", name: "web" });
  });

  it.each(["portforward", "proxy"])("leaves a %s alone: it runs no code in the pod", (subResource) => {
    expect(planPodRead(connect(subResource), settings("always"))).toBeUndefined();
    expect(authorize(connect(subResource), {}, "always").decision).toEqual({ allowed: true });
  });

  describe.each(PLACES)("GMSA at $label", ({ kind, label }) => {
    const pod = podWithGmsaAt(kind, { gmsaCredentialSpecName: "webapp1" });

    it.each(["exec", "attach"])(
      "refuses a %s to a requester who may not use the pod's credspec (403)",
      (subResource) => {
        const { plan, decision } = authorize(connect(subResource, pod), { userAccess: { webapp1: false } });
        expect(plan.load.credspecs.size).toBe(0);
        expect(plan.load.access.map(({ subject }) => subject)).toEqual([{ namespace: "ns1", user: ALICE }]);
        expectDenied(
          decision,
          [["ERR_CREDSPEC_NOT_ALLOWED", 403]],
          `pods/${subResource} into ${label}`,
          'user "alice" is not allowed to use GMSACredentialSpec "webapp1"',
        );
      },
    );

    it("allows an exec to a requester who may use it", () => {
      expect(authorize(connect("exec", pod), { userAccess: { webapp1: true } }).decision).toMatchObject({
        allowed: true,
      });
    });

    it("allows any exec with REVIEW_REQUESTING_USER=off, reading nothing", () => {
      const { plan, decision } = authorize(connect("exec"), {}, "off");
      expect(plan.load.access).toEqual([]);
      expect(decision).toEqual({ allowed: true });
    });
  });

  it("allows an exec into a pod without GMSA settings, with no access review", () => {
    const pod: Pod = { spec: { containers: [{ name: "web" }] } };
    const { plan, decision } = authorize(connect("exec", pod), {});
    expect(plan.load.access).toEqual([]);
    expect(decision.allowed).toBe(true);
  });

  it("fails closed when the pod could not be read (500)", () => {
    const down = new AdmissionError('reading pod "ns1/web": API server answered 503', { code: "ERR_KUBE_API" });
    expectDenied(authorize(connect("exec", down), {}).decision, [["ERR_KUBE_API", 500]], "reading pod");
  });

  it("fails closed when the pod was not loaded at all (our bug, 500)", () => {
    expectDenied(authorize(connect("exec"), {}).decision, [["ERR_INTERNAL", 500]]);
  });

  it("refuses a review without a requester (400)", () => {
    const pod = podWithGmsaAt("pod", { gmsaCredentialSpecName: "webapp1" });
    expectDenied(
      authorize(connect("exec", pod, null), {}).decision,
      [["ERR_INVALID_REVIEW", 400]],
      "request.userInfo.username is missing",
    );
  });
});
