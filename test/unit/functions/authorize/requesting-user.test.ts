/** authorize with REVIEW_REQUESTING_USER: the requester's `use` is reviewed besides the service account's. */
import { describe, expect, it } from "vitest";
import type { Pod, WindowsOptions } from "../../../../shared/admission/review.ts";
import type { RequestingUserMode } from "../../../../shared/policy/facts.ts";
import { createTestApp, postReview } from "../../../support/app.ts";
import { createFakeGmsaClient, type FakeGmsaClientOptions } from "../../../support/fake-gmsa-client.ts";
import { buildPod, inlined, podWithGmsaAt, WEBAPP1_CREDSPEC, WEBAPP2_CREDSPEC } from "../../../support/pods.ts";
import { buildReview, type ReviewOptions } from "../../../support/reviews.ts";

const expanded1: WindowsOptions = { gmsaCredentialSpecName: "webapp1", gmsaCredentialSpec: inlined(WEBAPP1_CREDSPEC) };
const expanded2: WindowsOptions = { gmsaCredentialSpecName: "webapp2", gmsaCredentialSpec: inlined(WEBAPP2_CREDSPEC) };
const allowed = ["webapp1", "webapp2"].map((credSpecName) => ({
  namespace: "ns1",
  serviceAccount: "sa1",
  credSpecName,
}));
const alice = {
  username: "alice",
  uid: "u-1",
  groups: ["devs", "system:authenticated"],
  extra: { "scopes.example.com": ["debug"] },
};
const aliceMay = (credSpecName: string) => ({ namespace: "ns1", username: "alice", credSpecName });

const existing = buildPod({ windowsOptions: expanded2 });
function withDebugger(windowsOptions: WindowsOptions): Pod {
  const pod = structuredClone(existing);
  pod.spec!.ephemeralContainers = [{ name: "debugger", securityContext: { windowsOptions } }];
  return pod;
}
const debug: ReviewOptions = {
  operation: "UPDATE",
  subResource: "ephemeralcontainers",
  oldObject: existing,
  userInfo: alice,
};

async function authorize(
  mode: RequestingUserMode,
  pod: Pod,
  review: ReviewOptions,
  client: FakeGmsaClientOptions = {},
) {
  const gmsa = createFakeGmsaClient({
    credspecs: { webapp1: WEBAPP1_CREDSPEC, webapp2: WEBAPP2_CREDSPEC },
    allowed,
    denyReason: "RBAC: no",
    ...client,
  });
  const { app } = createTestApp({ gmsa, settings: { requestingUser: mode } });
  return { reply: await postReview(app, "authorize", buildReview(pod, review)), gmsa };
}

describe("authorize with REVIEW_REQUESTING_USER", () => {
  it("off: never reviews the requester (as windows-gmsa)", async () => {
    const { reply, gmsa } = await authorize("off", withDebugger(expanded1), debug);
    expect(reply.response.allowed).toBe(true);
    expect(gmsa.userAccessQueries).toEqual([]);
  });

  it("ephemeral: denies a user who may not use the credspec an ephemeral container naming it (403), naming both", async () => {
    const { reply, gmsa } = await authorize("ephemeral", withDebugger(expanded1), debug);
    expect(reply.response.allowed).toBe(false);
    expect(reply.response.status?.code).toBe(403);
    for (const text of ['ephemeral container "debugger"', 'user "alice"', '"webapp1"', "RBAC: no"])
      expect(reply.response.status?.message).toContain(text);
    expect(reply.response.status?.message).not.toContain("service account");
    expect(gmsa.userAccessQueries).toEqual([{ namespace: "ns1", user: alice, credSpecName: "webapp1" }]);
  });

  it("ephemeral: allows a user who may use it, reviewing the user and the service account concurrently, each once", async () => {
    const pod = withDebugger(expanded1);
    pod.spec!.ephemeralContainers!.push({ name: "debugger-2", securityContext: { windowsOptions: expanded1 } });
    const { reply, gmsa } = await authorize("ephemeral", pod, debug, {
      allowedUsers: [aliceMay("webapp1")],
      delayMs: 5,
    });
    expect(reply.response.allowed).toBe(true);
    expect(gmsa.userAccessQueries).toHaveLength(1);
    expect(gmsa.accessQueries).toHaveLength(1);
    expect(gmsa.maxInFlight()).toBe(3);
  });

  it("ephemeral: does not review the requester of a pod create", async () => {
    const { reply, gmsa } = await authorize("ephemeral", podWithGmsaAt("container", expanded1), { userInfo: alice });
    expect(reply.response.allowed).toBe(true);
    expect(gmsa.userAccessQueries).toEqual([]);
  });

  it("always: denies a pod create whose requester may not use the credspec (403)", async () => {
    const { reply } = await authorize("always", podWithGmsaAt("container", expanded1), { userInfo: alice });
    expect(reply.response.status?.code).toBe(403);
    expect(reply.response.status?.message).toContain(
      'container "app": user "alice" is not allowed to use GMSACredentialSpec "webapp1"',
    );
  });

  it("always: reviews the requester of a pod update that leaves GMSA alone, and nothing else", async () => {
    const updated = structuredClone(existing);
    updated.metadata = { ...updated.metadata, labels: { a: "b" } };
    const update: ReviewOptions = { operation: "UPDATE", oldObject: existing, userInfo: alice };
    const denied = await authorize("always", updated, update);
    expect(denied.reply.response.status?.code).toBe(403);
    expect(denied.reply.response.status?.message).toContain(
      'pod: user "alice" is not allowed to use GMSACredentialSpec "webapp2"',
    );
    const ok = await authorize("always", updated, update, { allowedUsers: [aliceMay("webapp2")] });
    expect(ok.reply.response.allowed).toBe(true);
    expect(ok.gmsa.accessQueries).toEqual([]);
    expect(ok.gmsa.contentsCalls.size).toBe(0);
    expect((await authorize("ephemeral", updated, update)).gmsa.callCount()).toBe(0);
  });

  describe("a new ephemeral container without GMSA settings of its own runs under the pod-level GMSA", () => {
    it.each(["ephemeral", "always"] as const)(
      "%s: denies a user who may not use the pod's credspec (403), naming the user and the credspec",
      async (mode) => {
        const { reply, gmsa } = await authorize(mode, withDebugger({ runAsUserName: "ContainerAdministrator" }), debug);
        expect(reply.response.allowed).toBe(false);
        expect(reply.response.status?.code).toBe(403);
        expect(reply.response.status?.message).toContain(
          'ephemeral container "debugger" (pod-level GMSA): user "alice" is not allowed to use GMSACredentialSpec "webapp2"',
        );
        expect(reply.response.auditAnnotations).toMatchObject({
          decision: "denied",
          credspecs: "webapp2",
          codes: "ERR_CREDSPEC_NOT_ALLOWED",
        });
        expect(gmsa.userAccessQueries).toEqual([{ namespace: "ns1", user: alice, credSpecName: "webapp2" }]);
      },
    );

    it.each(["ephemeral", "always"] as const)(
      "%s: allows a user who may use it, the audit annotations naming the credspec",
      async (mode) => {
        const pod = structuredClone(existing);
        pod.spec!.ephemeralContainers = [{ name: "debugger" }];
        const { reply, gmsa } = await authorize(mode, pod, debug, { allowedUsers: [aliceMay("webapp2")] });
        expect(reply.response.allowed).toBe(true);
        expect(reply.response.auditAnnotations).toEqual({ decision: "allowed", credspecs: "webapp2" });
        expect(gmsa.userAccessQueries).toEqual([{ namespace: "ns1", user: alice, credSpecName: "webapp2" }]);
        expect(gmsa.accessQueries).toEqual([{ namespace: "ns1", serviceAccount: "sa1", credSpecName: "webapp2" }]);
      },
    );

    it("a container naming a credspec of its own is judged by its own, not the pod's", async () => {
      const { reply, gmsa } = await authorize("ephemeral", withDebugger(expanded1), debug, {
        allowedUsers: [aliceMay("webapp1")],
      });
      expect(reply.response.allowed).toBe(true);
      expect(gmsa.userAccessQueries.map((q) => q.credSpecName)).toEqual(["webapp1"]);
    });
  });

  it("fails closed when the user's review cannot be made (500), and refuses a review without a username (400)", async () => {
    const down = await authorize("ephemeral", withDebugger(expanded1), debug, {
      fail: (call) => (call === "canUserUseCredSpec" ? new Error("connection refused") : undefined),
    });
    expect(down.reply.response.status?.code).toBe(500);
    const anonymous = await authorize("ephemeral", withDebugger(expanded1), { ...debug, userInfo: {} });
    expect(anonymous.reply.response.status?.code).toBe(400);
  });
});
