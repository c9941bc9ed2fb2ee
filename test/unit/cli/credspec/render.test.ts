import { describe, expect, it } from "vitest";
import {
  buildCredSpecResources,
  deriveCredSpecName,
  formatKubeObjects,
  isRbacName,
  parseServiceAccountRef,
} from "../../../../cli/credspec/render.ts";
import type { CredSpecDocument } from "../../../../cli/credspec/validate.ts";
import { editJson, loadCredSpecFixture, printAndParse } from "../../../support/credspec-fixtures.ts";

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
      {
        apiVersion: "windows.k8s.io/v1",
        kind: "GMSACredentialSpec",
        metadata: { name: "webapp1" },
        credspec: loadCredSpecFixture(FIXTURE),
      },
      clusterRole("webapp1", "webapp1-use"),
    ]);
  });

  it("binds each service account once with a RoleBinding in its namespace, naming role and bindings after roleName if given", () => {
    const serviceAccounts = [
      { namespace: "web", name: "frontend" },
      { namespace: "batch", name: "reports" },
      { namespace: "web", name: "frontend" },
    ];
    const [, role, ...bindings] = printAndParse(buildCredSpecResources(document, { name: "webapp1", serviceAccounts }));
    expect(role).toEqual(clusterRole("webapp1", "webapp1-use"));
    expect(bindings).toEqual([
      roleBinding("webapp1-use", "web", "frontend"),
      roleBinding("webapp1-use", "batch", "reports"),
    ]);
    const named = buildCredSpecResources(document, {
      name: "webapp1",
      roleName: "gmsa:webapp1",
      serviceAccounts: [{ namespace: "default", name: "default" }],
    });
    expect(printAndParse(named).slice(1)).toEqual([
      clusterRole("webapp1", "gmsa:webapp1"),
      roleBinding("gmsa:webapp1", "default", "default"),
    ]);
  });

  it("copies the credential spec instead of sharing it", () => {
    const input = structuredClone(document);
    const [credSpec] = buildCredSpecResources(input, { name: "webapp1" });
    input.DomainJoinConfig.NetBiosName = "FABRIKAM";
    expect(credSpec!.credspec).toEqual(document);
  });
});

describe("formatKubeObjects", () => {
  it("quotes strings that YAML 1.1 (kubectl) would read as booleans", () => {
    const odd = editJson(document, "DomainJoinConfig.NetBiosName", "ON") as CredSpecDocument;
    const yaml = formatKubeObjects(buildCredSpecResources(odd, { name: "webapp1" }), "yaml");
    expect(yaml).toContain('NetBiosName: "ON"');
    expect(printAndParse(buildCredSpecResources(odd, { name: "webapp1" }))[0]).toMatchObject({
      credspec: { DomainJoinConfig: { NetBiosName: "ON" } },
    });
  });

  it("prints YAML as one document per object, and JSON as a v1 List of the same objects", () => {
    const objects = buildCredSpecResources(document, {
      name: "webapp1",
      serviceAccounts: [{ namespace: "web", name: "frontend" }],
    });
    const yaml = formatKubeObjects(objects, "yaml");
    expect(yaml.split(/^---$/m)).toHaveLength(3);
    expect(yaml.endsWith("\n")).toBe(true);
    expect(JSON.parse(formatKubeObjects(objects, "json"))).toEqual({
      apiVersion: "v1",
      kind: "List",
      items: printAndParse(objects),
    });
  });
});

describe("deriveCredSpecName", () => {
  it.each([
    ["WebApp1", "webapp1"],
    ["web_app 1", "web-app-1"],
    ["-WebApp1$", "webapp1"],
    ["svc.WebApp..1", "svc.webapp.1"],
  ])("turns the account name %j into the DNS-1123 subdomain %j", (account, name) => {
    expect(deriveCredSpecName(account)).toBe(name);
  });

  it.each(["", "___", "..", "x".repeat(254)])("leaves no name for %j", (account) => {
    expect(deriveCredSpecName(account)).toBeUndefined();
  });
});

describe("parseServiceAccountRef", () => {
  it.each([
    ["web:webapp1", { namespace: "web", name: "webapp1" }],
    ["default:app.v2", { namespace: "default", name: "app.v2" }],
  ])("splits %j", (text, ref) => expect(parseServiceAccountRef(text)).toEqual(ref));

  it.each([
    "webapp1",
    ":webapp1",
    "web:",
    "web:a:b",
    "Web:webapp1",
    "web:WebApp1",
    "web.ns:webapp1",
    `${"n".repeat(64)}:a`,
  ])("rejects %j", (text) => expect(parseServiceAccountRef(text)).toBeUndefined());
});

describe("isRbacName", () => {
  it.each(["webapp1-use", "gmsa:webapp1", "Use_WebApp1"])("accepts %j", (name) => expect(isRbacName(name)).toBe(true));
  it.each(["", ".", "..", "a/b", "a%2f"])("rejects %j", (name) => expect(isRbacName(name)).toBe(false));
});
