/** authorize with REVIEW_REQUESTING_USER on exec and attach: the pod is read, then the requester's `use` reviewed. */
import { describe, expect, it } from "vitest";
import { AdmissionError } from "../../../../shared/errors.ts";
import type { RequestingUserMode } from "../../../../shared/policy/facts.ts";
import { createTestApp, postReview } from "../../../support/app.ts";
import { createFakeGmsaClient, type FakeGmsaClientOptions } from "../../../support/fake-gmsa-client.ts";
import { buildPod, inlined, WEBAPP1_CREDSPEC } from "../../../support/pods.ts";
import { buildReview } from "../../../support/reviews.ts";

const alice = { username: "alice", groups: ["devs", "system:authenticated"] };
const gmsaPod = buildPod({
  windowsOptions: { gmsaCredentialSpecName: "webapp1", gmsaCredentialSpec: inlined(WEBAPP1_CREDSPEC) },
});
const plainPod = buildPod({});
const execOptions = { apiVersion: "v1", kind: "PodExecOptions", container: "app", command: ["cmd"], stdout: true };

async function connect(mode: RequestingUserMode, subResource: string, client: FakeGmsaClientOptions = {}) {
  const gmsa = createFakeGmsaClient({ pods: { "ns1/web": gmsaPod }, ...client });
  const { app } = createTestApp({ gmsa, settings: { requestingUser: mode } });
  const kind = { group: "", version: "v1", kind: subResource === "exec" ? "PodExecOptions" : "PodAttachOptions" };
  const review = buildReview(execOptions, {
    operation: "CONNECT",
    subResource,
    kind,
    namespace: "ns1",
    userInfo: alice,
  });
  return { reply: await postReview(app, "authorize", review), gmsa };
}

describe("authorize: exec and attach with REVIEW_REQUESTING_USER", () => {
  it.each(["exec", "attach"])(
    "refuses a %s into a GMSA pod to a user who may not use its credspec (403)",
    async (subResource) => {
      const { reply, gmsa } = await connect("ephemeral", subResource);
      expect(reply.response).toMatchObject({ allowed: false, status: { code: 403 } });
      expect(reply.response.status?.message).toContain(
        `pods/${subResource} into pod: user "alice" is not allowed to use GMSACredentialSpec "webapp1"`,
      );
      expect(gmsa.podReads).toEqual(["ns1/web"]);
      expect(gmsa.userAccessQueries).toEqual([{ namespace: "ns1", user: alice, credSpecName: "webapp1" }]);
      expect(gmsa.contentsCalls.size).toBe(0);
    },
  );

  it("allows it to a user who may use the credspec", async () => {
    const { reply } = await connect("always", "exec", {
      allowedUsers: [{ namespace: "ns1", username: "alice", credSpecName: "webapp1" }],
    });
    expect(reply.response.allowed).toBe(true);
  });

  it("allows an exec into a pod without GMSA settings after reading it, with no access review", async () => {
    const { reply, gmsa } = await connect("ephemeral", "exec", { pods: { "ns1/web": plainPod } });
    expect(reply.response.allowed).toBe(true);
    expect(gmsa.userAccessQueries).toEqual([]);
  });

  it("off: allows any exec without reading the pod", async () => {
    const { reply, gmsa } = await connect("off", "exec");
    expect(reply.response.allowed).toBe(true);
    expect(gmsa.callCount()).toBe(0);
  });

  it("fails closed when the pod cannot be read (500)", async () => {
    const fail = () =>
      new AdmissionError('reading pod "ns1/web": API server answered 403 Forbidden: check this function\'s RBAC', {
        code: "ERR_KUBE_API",
      });
    const { reply } = await connect("ephemeral", "exec", { fail });
    expect(reply.response).toMatchObject({ allowed: false, status: { code: 500 } });
    expect(reply.response.status?.message).toContain("check this function's RBAC");
  });
});
