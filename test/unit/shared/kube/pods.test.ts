import { describe, expect, it } from "vitest";
import { createFakeKubeClient, json, status, type FakeScript } from "../../../support/fake-fetch.ts";
import { rejectionOf } from "../../../support/no-secrets.ts";

const call = () => ({ signal: AbortSignal.timeout(10_000) });
const pod = {
  kind: "Pod",
  metadata: { name: "web" },
  spec: { containers: [{ name: "app", securityContext: { windowsOptions: { gmsaCredentialSpecName: "webapp01" } } }] },
};

const setup = (script: FakeScript) => createFakeKubeClient(script, { retryDelayMs: 10 });

describe("getPod: the pod an exec or attach goes into", () => {
  it("GETs the pod in its namespace, every time (never cached), and returns it", async () => {
    const { client, calls } = setup(() => json(200, pod));
    expect(await client.getPod("team-a", "web", call())).toEqual(pod);
    await client.getPod("team-a", "web", call());
    expect(calls.map((c) => c.url)).toEqual(Array(2).fill("https://kube.example/api/v1/namespaces/team-a/pods/web"));
  });

  it("fails closed on a missing pod and on our own RBAC (ERR_KUBE_API, 500)", async () => {
    expect(
      await rejectionOf(
        setup(() => status(404, "NotFound", { name: "web", kind: "pods" })).client.getPod("team-a", "web", call()),
      ),
    ).toMatchObject({ code: "ERR_KUBE_API", status: 500 });
    const forbidden = await rejectionOf(setup(() => status(403, "Forbidden")).client.getPod("team-a", "web", call()));
    expect(forbidden).toMatchObject({ code: "ERR_KUBE_API", status: 500 });
    expect(forbidden.message).toContain("check this function's RBAC");
  });

  it("refuses names that cannot be Kubernetes names before any call (400)", async () => {
    const { client, calls } = setup(() => json(200, pod));
    for (const [namespace, name] of [
      ["../x", "web"],
      ["team-a", ""],
    ])
      expect(await rejectionOf(client.getPod(namespace!, name!, call()))).toMatchObject({
        code: "ERR_INVALID_REVIEW",
        status: 400,
      });
    expect(calls).toHaveLength(0);
  });

  it("refuses an answer that is not a pod (500)", async () => {
    expect(
      await rejectionOf(setup(() => json(200, { spec: { containers: "no" } })).client.getPod("team-a", "web", call())),
    ).toMatchObject({ code: "ERR_KUBE_API" });
  });
});
