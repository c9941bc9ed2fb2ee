import { describe, expect, it } from "vitest";
import type { CredSpecDocument } from "../../../../shared/credspec/validate.ts";
import { buildCredSpecResources } from "../../../../shared/credspec/render.ts";
import { loadCredSpecFixture, printAndParse } from "../../../support/credspec-fixtures.ts";

const FIXTURE = "webapp1-non-domain-joined.json";
const document = loadCredSpecFixture(FIXTURE) as unknown as CredSpecDocument;

const clusterRole = (name: string, roleName: string): unknown => ({
  apiVersion: "rbac.authorization.k8s.io/v1",
  kind: "ClusterRole",
  metadata: { name: roleName },
  rules: [{ apiGroups: ["windows.k8s.io"], resources: ["gmsacredentialspecs"], verbs: ["use"], resourceNames: [name] }],
});

const roleBinding = (roleName: string, namespace: string, serviceAccount: string): unknown => ({
  apiVersion: "rbac.authorization.k8s.io/v1",
  kind: "RoleBinding",
  metadata: { name: `${roleName}-${serviceAccount}`, namespace },
  roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: roleName },
  subjects: [{ kind: "ServiceAccount", name: serviceAccount, namespace }],
});

describe("buildCredSpecResources", () => {
  it("prints the cluster-scoped GMSACredentialSpec holding the JSON and a ClusterRole to use it", () => {
    expect(printAndParse(buildCredSpecResources(document, { name: "webapp1" }))).toEqual([
      { apiVersion: "windows.k8s.io/v1", kind: "GMSACredentialSpec", metadata: { name: "webapp1" }, credspec: loadCredSpecFixture(FIXTURE) },
      clusterRole("webapp1", "webapp1-use"),
    ]);
  });

  it("binds each service account once with a RoleBinding in its namespace", () => {
    const serviceAccounts = [
      { namespace: "web", name: "frontend" },
      { namespace: "batch", name: "reports" },
      { namespace: "web", name: "frontend" },
    ];
    const [, role, ...bindings] = printAndParse(buildCredSpecResources(document, { name: "webapp1", serviceAccounts }));
    expect(role).toEqual(clusterRole("webapp1", "webapp1-use"));
    expect(bindings).toEqual([roleBinding("webapp1-use", "web", "frontend"), roleBinding("webapp1-use", "batch", "reports")]);
  });

  it("names the ClusterRole and its bindings after roleName when given", () => {
    const objects = buildCredSpecResources(document, {
      name: "webapp1",
      roleName: "gmsa:webapp1",
      serviceAccounts: [{ namespace: "default", name: "default" }],
    });
    expect(printAndParse(objects).slice(1)).toEqual([clusterRole("webapp1", "gmsa:webapp1"), roleBinding("gmsa:webapp1", "default", "default")]);
  });

  it("copies the credential spec instead of sharing it", () => {
    const input = structuredClone(document);
    const [credSpec] = buildCredSpecResources(input, { name: "webapp1" });
    input.DomainJoinConfig.NetBiosName = "FABRIKAM";
    expect(credSpec!.credspec).toEqual(document);
  });

  it("throws TypeError for a name that is not a DNS-1123 subdomain or a bad roleName", () => {
    expect(() => buildCredSpecResources(document, { name: "WebApp1" })).toThrow(TypeError);
    expect(() => buildCredSpecResources(document, { name: "webapp1", roleName: "a/b" })).toThrow(TypeError);
  });
});
