import { describe, expect, it } from "vitest";
import { AdmissionError } from "../../../../shared/errors.ts";
import { buildLocalSubjectAccessReview } from "../../../../shared/kube/access-reviews.ts";
import { createFakeKubeClient, json, status, type FakeScript } from "../../../support/fake-fetch.ts";

const query = { namespace: "shop", serviceAccount: "web", credSpecName: "webapp01" };
const call = () => ({ signal: AbortSignal.timeout(10_000) });

const setup = (script: FakeScript) => createFakeKubeClient(script, { retryDelayMs: 10, accessCacheTtlMs: 0 });

const verdict = (status: Record<string, unknown>) => json(201, { ...buildLocalSubjectAccessReview(query), status });

describe("canUseCredSpec", () => {
  it("POSTs the LocalSubjectAccessReview of docs/security.md (Access reviews) in the pod's namespace", async () => {
    const { client, calls } = setup(() => verdict({ allowed: true }));
    await client.canUseCredSpec(query, call());
    expect(calls[0]?.method).toBe("POST");
    expect(calls[0]?.url).toBe(
      "https://kube.example/apis/authorization.k8s.io/v1/namespaces/shop/localsubjectaccessreviews",
    );
    expect(calls[0]?.headers.get("Content-Type")).toBe("application/json");
    expect(calls[0]?.body).toEqual({
      apiVersion: "authorization.k8s.io/v1",
      kind: "LocalSubjectAccessReview",
      metadata: { namespace: "shop" },
      spec: {
        user: "system:serviceaccount:shop:web",
        groups: ["system:serviceaccounts", "system:serviceaccounts:shop", "system:authenticated"],
        resourceAttributes: {
          namespace: "shop",
          verb: "use",
          group: "windows.k8s.io",
          resource: "gmsacredentialspecs",
          name: "webapp01",
        },
      },
    });
  });

  it("allows only when allowed and not denied", async () => {
    expect(await setup(() => verdict({ allowed: true })).client.canUseCredSpec(query, call())).toEqual({
      allowed: true,
      reason: "",
    });
    expect(
      await setup(() => verdict({ allowed: true, denied: true, reason: "odd" })).client.canUseCredSpec(query, call()),
    ).toEqual({ allowed: false, reason: "odd" });
    expect(
      await setup(() => verdict({ allowed: false, denied: true, reason: "RBAC: no" })).client.canUseCredSpec(
        query,
        call(),
      ),
    ).toEqual({
      allowed: false,
      reason: "RBAC: no",
    });
  });

  it("falls back to evaluationError for the reason", async () => {
    const { client } = setup(() => verdict({ allowed: false, evaluationError: "webhook authorizer timed out" }));
    expect(await client.canUseCredSpec(query, call())).toEqual({
      allowed: false,
      reason: "webhook authorizer timed out",
    });
  });

  it("does not retry a failed POST on 5xx and maps it to ERR_KUBE_API", async () => {
    const { client, calls } = setup(() => status(503, "ServiceUnavailable"));
    await expect(client.canUseCredSpec(query, call())).rejects.toThrow(
      new AdmissionError(
        'reviewing whether service account "shop/web" may use GMSACredentialSpec "webapp01": API server answered 503 ServiceUnavailable',
        { code: "ERR_KUBE_API" },
      ),
    );
    expect(calls).toHaveLength(1);
  });

  it("refuses an answer without status.allowed", async () => {
    const { client } = setup(() => json(201, { kind: "LocalSubjectAccessReview" }));
    await expect(client.canUseCredSpec(query, call())).rejects.toMatchObject({ code: "ERR_KUBE_API" });
  });

  it("validates namespace, service account and credspec names before any call", async () => {
    const { client, calls } = setup(() => verdict({ allowed: true }));
    await expect(client.canUseCredSpec({ ...query, namespace: "Shop/../x" }, call())).rejects.toMatchObject({
      code: "ERR_INVALID_REVIEW",
    });
    await expect(client.canUseCredSpec({ ...query, serviceAccount: "a b" }, call())).rejects.toMatchObject({
      code: "ERR_INVALID_REVIEW",
    });
    await expect(client.canUseCredSpec({ ...query, credSpecName: "X" }, call())).rejects.toMatchObject({
      code: "ERR_INVALID_CREDSPEC_NAME",
    });
    expect(calls).toHaveLength(0);
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
    expect(calls[0]?.url).toBe(
      "https://kube.example/apis/authorization.k8s.io/v1/namespaces/shop/localsubjectaccessreviews",
    );
    expect(calls[0]?.body).toEqual({
      apiVersion: "authorization.k8s.io/v1",
      kind: "LocalSubjectAccessReview",
      metadata: { namespace: "shop" },
      spec: {
        user: "alice@example.com",
        uid: "42",
        groups: ["devs", "system:authenticated"],
        extra: { scopes: ["a", "b"] },
        resourceAttributes: {
          namespace: "shop",
          verb: "use",
          group: "windows.k8s.io",
          resource: "gmsacredentialspecs",
          name: "webapp01",
        },
      },
    });
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
    expect((calls[0]?.body as { spec: unknown }).spec).toEqual({
      user: "bob",
      resourceAttributes: {
        namespace: "shop",
        verb: "use",
        group: "windows.k8s.io",
        resource: "gmsacredentialspecs",
        name: "webapp01",
      },
    });
  });

  it("refuses impossible names before any call", async () => {
    const { client, calls } = setup(() => json(201, { status: { allowed: true } }));
    await expect(client.canUseCredSpec({ ...userQuery, namespace: "a/b" }, call())).rejects.toMatchObject({
      code: "ERR_INVALID_REVIEW",
    });
    await expect(client.canUseCredSpec({ ...userQuery, credSpecName: "X" }, call())).rejects.toMatchObject({
      code: "ERR_INVALID_CREDSPEC_NAME",
    });
    expect(calls).toHaveLength(0);
  });
});
