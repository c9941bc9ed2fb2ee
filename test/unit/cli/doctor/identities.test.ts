import { describe, expect, it } from "vitest";
import type { ClusterRequest, ClusterAnswer } from "../../../../cli/cluster.ts";
import { checkIdentities, findIdentities } from "../../../../cli/doctor/identities.ts";
import { serviceAccountSubject } from "../../../../shared/kube/access-reviews.ts";

const answer = (status: number, body: unknown): Promise<ClusterAnswer> =>
  Promise.resolve({ status, body, warnings: [] });
const unused = { request: () => Promise.reject(new Error("nothing to look for")) };

describe("the functions' identities", () => {
  it("are the chart's labelled ServiceAccounts, else infra/deploy/rbac's gmsa-webhooks/gmsa-<fn>", async () => {
    const labelled = [
      {
        metadata: {
          name: "gwi-gmsa-webhooks-expand",
          namespace: "gwi",
          labels: { "app.kubernetes.io/component": "expand" },
        },
      },
    ];
    const cluster = {
      request: ({ path }: ClusterRequest) =>
        path === "/api/v1/serviceaccounts"
          ? answer(200, { items: labelled })
          : answer(path.endsWith("/gmsa-authorize") ? 200 : 404, {}),
    };
    expect(await findIdentities(cluster)).toEqual({
      expand: serviceAccountSubject("gwi", "gwi-gmsa-webhooks-expand"),
      authorize: serviceAccountSubject("gmsa-webhooks", "gmsa-authorize"),
    });
  });

  it("given as user names: a service account's gets its groups, any other user system:authenticated", async () => {
    const identities = await findIdentities(unused, {
      expand: "system:serviceaccount:fn:expand",
      authorize: "gmsa-webhooks:authorize",
    });
    expect(identities.expand?.groups).toEqual([
      "system:serviceaccounts",
      "system:serviceaccounts:fn",
      "system:authenticated",
    ]);
    expect(identities.authorize).toEqual({ user: "gmsa-webhooks:authorize", groups: ["system:authenticated"] });
  });

  it("given as system:anonymous: system:unauthenticated, not system:authenticated", async () => {
    const identities = await findIdentities(unused, { expand: "system:anonymous", authorize: "system:anonymous" });
    expect(identities.expand).toEqual({ user: "system:anonymous", groups: ["system:unauthenticated"] });
  });

  it("fail naming what is missing, cluster-wide, and skip an identity nobody named", async () => {
    const asked: unknown[] = [];
    const cluster = {
      request: ({ body }: ClusterRequest) => {
        const attributes = (body as { spec: { resourceAttributes: { verb: string } } }).spec.resourceAttributes;
        asked.push(attributes);
        return answer(201, { status: { allowed: attributes.verb === "get" } });
      },
    };
    const findings = await checkIdentities(cluster, {
      authorize: serviceAccountSubject("gmsa-webhooks", "gmsa-authorize"),
    });
    expect(findings.map((f) => [f.check, f.status])).toEqual([
      ["rbac/expand", "skip"],
      ["rbac/authorize", "fail"],
    ]);
    expect(findings[1]?.message).toBe(
      "authorize's identity system:serviceaccount:gmsa-webhooks:gmsa-authorize may not create localsubjectaccessreviews.authorization.k8s.io in every namespace: its RBAC is missing",
    );
    // No namespace in the attributes: the review asks about every namespace at once.
    expect(asked).toEqual([
      { verb: "get", group: "windows.k8s.io", resource: "gmsacredentialspecs" },
      { verb: "create", group: "authorization.k8s.io", resource: "localsubjectaccessreviews" },
    ]);
  });
});
