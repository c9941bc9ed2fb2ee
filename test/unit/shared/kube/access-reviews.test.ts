import { describe, expect, it } from "vitest";
import { AdmissionError } from "../../../../shared/errors.ts";
import { buildLocalSubjectAccessReview } from "../../../../shared/kube/access-reviews.ts";
import { createFakeKubeClient, json, status, type FakeCall, type FakeScript } from "../../../support/fake-fetch.ts";

const query = { namespace: "shop", serviceAccount: "web", credSpecName: "webapp01" };
const call = () => ({ signal: AbortSignal.timeout(10_000) });

const setup = (script: FakeScript) => createFakeKubeClient(script, { retryDelayMs: 10, accessCacheTtlMs: 0 });

const resourceAttributes = {
  namespace: "shop",
  verb: "use",
  group: "windows.k8s.io",
  resource: "gmsacredentialspecs",
  name: "webapp01",
};

const verdict = (status: Record<string, unknown>) => json(201, { ...buildLocalSubjectAccessReview(query), status });

/** Asserts that `call` POSTs the LocalSubjectAccessReview of `spec` (its resourceAttributes added) in namespace "shop". */
const expectReviewOf = (call: FakeCall | undefined, spec: Record<string, unknown>) =>
  expect([call?.method, call?.url, call?.body]).toEqual([
    "POST",
    "https://kube.example/apis/authorization.k8s.io/v1/namespaces/shop/localsubjectaccessreviews",
    {
      apiVersion: "authorization.k8s.io/v1",
      kind: "LocalSubjectAccessReview",
      metadata: { namespace: "shop" },
      spec: { ...spec, resourceAttributes },
    },
  ]);

describe("canUseCredSpec", () => {
  it("POSTs the LocalSubjectAccessReview of docs/security.md (Access reviews) in the pod's namespace", async () => {
    const { client, calls } = setup(() => verdict({ allowed: true }));
    await client.canUseCredSpec(query, call());
    expect(calls[0]?.headers.get("Content-Type")).toBe("application/json");
    expectReviewOf(calls[0], {
      user: "system:serviceaccount:shop:web",
      groups: ["system:serviceaccounts", "system:serviceaccounts:shop", "system:authenticated"],
    });
  });

  it.each([
    [{ allowed: true }, { allowed: true, reason: "" }],
    [
      { allowed: true, denied: true, reason: "odd" },
      { allowed: false, reason: "odd" },
    ],
    [
      { allowed: false, denied: true, reason: "RBAC: no" },
      { allowed: false, reason: "RBAC: no" },
    ],
    // evaluationError stands in for a missing reason.
    [
      { allowed: false, evaluationError: "timed out" },
      { allowed: false, reason: "timed out" },
    ],
  ])("reads status %j as %j: allowed only when allowed and not denied", async (answer, decision) => {
    expect(await setup(() => verdict(answer)).client.canUseCredSpec(query, call())).toEqual(decision);
  });

  it("does not retry a failed POST on 5xx and maps it to ERR_KUBE_API, as an answer without status.allowed", async () => {
    const { client, calls } = setup(() => status(503, "ServiceUnavailable"));
    await expect(client.canUseCredSpec(query, call())).rejects.toThrow(
      new AdmissionError(
        'reviewing whether service account "shop/web" may use GMSACredentialSpec "webapp01": API server answered 503 ServiceUnavailable',
        { code: "ERR_KUBE_API" },
      ),
    );
    expect(calls).toHaveLength(1);
    const { client: answering } = setup(() => json(201, { kind: "LocalSubjectAccessReview" }));
    await expect(answering.canUseCredSpec(query, call())).rejects.toMatchObject({ code: "ERR_KUBE_API" });
  });
});

describe("canUseCredSpec for the requesting user", () => {
  const user = {
    username: "alice@example.com",
    uid: "42",
    groups: ["devs", "system:authenticated"],
    extra: { scopes: ["a", "b"] },
  };
  const userQuery = { namespace: "shop", user, credSpecName: "webapp01" };

  it("POSTs a LocalSubjectAccessReview for the user's whole identity, never cached", async () => {
    const { client, calls } = setup(() => json(201, { status: { allowed: true } }));
    const cached = createFakeKubeClient(() => json(201, { status: { allowed: true } })).client;
    expect(await client.canUseCredSpec(userQuery, call())).toEqual({ allowed: true, reason: "" });
    const { username, ...identity } = user;
    expectReviewOf(calls[0], { user: username, ...identity });
    await cached.canUseCredSpec(userQuery, call());
    await cached.canUseCredSpec(userQuery, call());
    expect(cached.stats().accessCache.size).toBe(0);
  });

  it("sends only the fields userInfo has, and reads denials as for service accounts", async () => {
    const { client, calls } = setup(() => json(201, { status: { allowed: false, reason: "RBAC: no" } }));
    expect(await client.canUseCredSpec({ ...userQuery, user: { username: "bob" } }, call())).toEqual({
      allowed: false,
      reason: "RBAC: no",
    });
    expectReviewOf(calls[0], { user: "bob" });
  });

  it.each([
    [{ ...query, namespace: "Shop/../x" }, "ERR_INVALID_REVIEW"],
    [{ ...query, serviceAccount: "a b" }, "ERR_INVALID_REVIEW"],
    [{ ...query, credSpecName: "X" }, "ERR_INVALID_CREDSPEC_NAME"],
    [{ ...userQuery, namespace: "a/b" }, "ERR_INVALID_REVIEW"],
    [{ ...userQuery, credSpecName: "X" }, "ERR_INVALID_CREDSPEC_NAME"],
  ])("refuses the impossible names of %j before any call (%s)", async (badQuery, code) => {
    const { client, calls } = setup(() => verdict({ allowed: true }));
    await expect(client.canUseCredSpec(badQuery, call())).rejects.toMatchObject({ code });
    expect(calls).toHaveLength(0);
  });
});
