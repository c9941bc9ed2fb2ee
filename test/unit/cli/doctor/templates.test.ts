import { describe, expect, it } from "vitest";
import type { ClusterRequest } from "../../../../cli/cluster.ts";
import { checkGmsaPods } from "../../../../cli/doctor/nodes.ts";
import { listPodTemplates } from "../../../../cli/doctor/templates.ts";

const template = (credspec: string) => ({
  spec: {
    securityContext: { windowsOptions: { gmsaCredentialSpecName: credspec } },
    nodeSelector: { "kubernetes.io/os": "windows" },
    containers: [{ name: "app", image: "i" }],
  },
});
const workload = (name: string, namespace: string, spec: unknown, extra: Record<string, unknown> = {}) => ({
  metadata: { name, namespace, ...extra },
  spec,
});

/** A cluster listing one workload of each kind, a controlled ReplicaSet, a finished Job; access reviews allow all. */
function cluster(requests: string[]) {
  const lists: Record<string, unknown[]> = {
    "/apis/apps/v1/deployments": [workload("web", "web", { template: template("gone-d") })],
    "/apis/apps/v1/statefulsets": [workload("db", "web", { template: template("gone-s") })],
    "/apis/apps/v1/daemonsets": [workload("agent", "off", { template: template("gone-off") })],
    "/apis/apps/v1/replicasets": [
      workload(
        "web-1",
        "web",
        { template: template("old-revision") },
        { ownerReferences: [{ kind: "Deployment", name: "web", controller: true }] },
      ),
      workload("bare", "web", { template: template("webapp01") }),
    ],
    "/apis/batch/v1/jobs": [
      {
        ...workload("done", "web", { template: template("gone-done") }),
        status: { completionTime: "2026-01-01T00:00:00Z" },
      },
    ],
    "/apis/batch/v1/cronjobs": [
      workload("nightly", "web", { jobTemplate: { spec: { template: template("gone-c") } } }),
    ],
  };
  return {
    request: ({ path }: ClusterRequest) => {
      requests.push(path);
      return Promise.resolve({ status: 200, body: { items: lists[path] ?? [] }, warnings: [] });
    },
  };
}

describe("pod templates", () => {
  it("lists each workload kind's template, leaving out controlled ReplicaSets and finished Jobs, reading only", async () => {
    const requests: string[] = [];
    const templates = await listPodTemplates(cluster(requests));
    expect(templates.map((t) => t.label)).toEqual([
      "Deployment web/web",
      "StatefulSet web/db",
      "DaemonSet off/agent",
      "ReplicaSet web/bare",
      "CronJob web/nightly",
    ]);
    expect(requests).toHaveLength(6);
  });

  it("fails naming each template whose credspec does not exist, outside exempt namespaces, with no GMSA pod running", async () => {
    const templates = await listPodTemplates(cluster([]));
    const findings = await checkGmsaPods(cluster([]), [], {
      existing: new Set(["webapp01"]),
      exempt: new Set(["off"]),
      templates,
    });
    expect(findings.map((f) => [f.check, f.status])).toEqual([["pods/credspecs", "fail"]]);
    expect(findings[0]?.message).toMatch(
      /^3 running GMSA pods or pod templates name a GMSACredentialSpec that does not exist, so their new pods are refused \(422\): Deployment web\/web \(credspec gone-d\), StatefulSet web\/db \(credspec gone-s\), CronJob web\/nightly \(credspec gone-c\)$/,
    );
  });
});
