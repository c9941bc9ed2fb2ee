import { describe, expect, it } from "vitest";
import type { ClusterRequest } from "../../../../cli/cluster.ts";
import { checkGmsaPods, checkWindowsNodes, isAksCluster, type PodObject } from "../../../../cli/doctor/nodes.ts";

const node = (name: string, labels: Record<string, string>, providerID?: string) => ({
  metadata: { name, labels },
  ...(providerID ? { spec: { providerID } } : {}),
});

const pod = (name: string, spec: Record<string, unknown>, annotations?: Record<string, string>): PodObject => ({
  metadata: { name, namespace: "web", ...(annotations ? { annotations } : {}) },
  spec: { containers: [{ name: "app", image: "i" }], ...spec },
});
const gmsa = { securityContext: { windowsOptions: { gmsaCredentialSpecName: "webapp01" } } };
const windows = { nodeSelector: { "kubernetes.io/os": "windows" } };

/** A cluster whose access reviews allow only `allowed` (`<ns>/<sa>/<credspec>`); `requests` gets each path asked. */
function reviews(allowed: string[], requests: string[] = []) {
  return {
    request: ({ body, path }: ClusterRequest) => {
      requests.push(path);
      const spec = (body as { spec: { user: string; resourceAttributes: { namespace: string; name: string } } }).spec;
      const key = `${spec.resourceAttributes.namespace}/${spec.user.split(":").at(-1)}/${spec.resourceAttributes.name}`;
      return Promise.resolve({ status: 201, body: { status: { allowed: allowed.includes(key) } }, warnings: [] });
    },
  };
}

describe("nodes", () => {
  it("warns when no node runs Windows, passes when one does", () => {
    expect(checkWindowsNodes([node("l", { "kubernetes.io/os": "linux" })]).status).toBe("warn");
    expect(
      checkWindowsNodes([node("l", { "kubernetes.io/os": "linux" }), node("w", { "kubernetes.io/os": "windows" })]),
    ).toMatchObject({ status: "pass", message: "1 of 2 nodes run Windows" });
  });
  it("recognises AKS by its node labels or provider ids", () => {
    expect(isAksCluster([node("a", { "kubernetes.azure.com/cluster": "x" })])).toBe(true);
    expect(isAksCluster([node("a", {}, "azure:///subscriptions/s/vm")])).toBe(true);
    expect(isAksCluster([node("e", {}, "aws:///eu-west-1a/i-1")])).toBe(false);
  });
});

describe("GMSA pods", () => {
  it("finds credspec names in fields and alpha annotations, none in other pods", async () => {
    const annotated = pod("a", {}, { "pod.alpha.windows.kubernetes.io/gmsa-credential-spec-name": "webapp02" });
    const findings = await checkGmsaPods(reviews(["web/default/webapp01"]), [pod("p", gmsa), annotated, pod("n", {})]);
    expect(findings.map((f) => f.check)).toEqual(["pods/placement", "pods/use"]);
    expect(findings[0]?.message).toMatch(/^2 GMSA pods could land on a Linux node .*: web\/p, web\/a$/);
    expect(findings[1]?.message).toMatch(/: pod web\/a \(service account default, credspec webapp02\)$/);
  });

  it("warns naming GMSA pods that could land on Linux: a nodeSelector or required affinity on Windows pins", async () => {
    const affinity = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: "kubernetes.io/os", operator: "In", values: ["windows"] }] }],
        },
      },
    };
    const findings = await checkGmsaPods(reviews(["web/default/webapp01"]), [
      pod("s", { ...gmsa, ...windows }),
      pod("f", { ...gmsa, affinity }),
      pod("p", gmsa),
      pod("plain", {}),
    ]);
    expect(findings.map((f) => [f.check, f.status, f.message.replace(/ \(.*\)/, "")])).toEqual([
      ["pods/placement", "warn", "1 GMSA pods could land on a Linux node: web/p"],
    ]);
  });

  it("fails naming each pod that names a credspec that does not exist, and reviews no use of it", async () => {
    const requests: string[] = [];
    const cluster = reviews(["web/default/webapp01"], requests);
    const gone = { securityContext: { windowsOptions: { gmsaCredentialSpecName: "retired" } } };
    const findings = await checkGmsaPods(
      cluster,
      [
        pod("ok", { ...gmsa, ...windows }),
        pod("old-1", { ...gone, ...windows }),
        pod("old-2", { ...gone, ...windows }),
      ],
      { existing: new Set(["webapp01"]) },
    );
    expect(findings.map((f) => [f.check, f.status])).toEqual([["pods/credspecs", "fail"]]);
    expect(findings[0]?.message).toBe(
      "2 running GMSA pods or pod templates name a GMSACredentialSpec that does not exist, so their new pods are refused (422): pod web/old-1 (credspec retired), pod web/old-2 (credspec retired)",
    );
    expect(requests).toHaveLength(1);
    // Without the list of credspecs (the CRD could not be read), nothing is called missing.
    expect(
      (await checkGmsaPods(reviews(["web/default/retired"]), [pod("old-1", { ...gone, ...windows })])).map(
        (f) => f.status,
      ),
    ).toEqual(["pass"]);
  });

  it("fails naming a pod whose service account may no longer use its credspec; leaves out exempt namespaces' pods", async () => {
    const pods = [pod("web-1", { ...gmsa, ...windows, serviceAccountName: "app" })];
    const findings = await checkGmsaPods(reviews([]), pods);
    expect(findings.map((f) => [f.check, f.status])).toEqual([["pods/use", "fail"]]);
    expect(findings[0]?.message).toMatch(/pod web\/web-1 \(service account app, credspec webapp01\)/);
    // The webhooks never review them: neither the use nor the missing credspec is a finding.
    expect(await checkGmsaPods(reviews([]), pods, { existing: new Set(), exempt: new Set(["web"]) })).toEqual([
      expect.objectContaining({ check: "pods", status: "pass", message: "no GMSA pod runs yet" }),
    ]);
  });
});
