/**
 * Which namespaces the webhooks of infra/webhooks/ enforce, through the real API server and the Node
 * functions (issue 14, section 4): every namespace, kube-system included, but those labelled
 * `windows.k8s.io/disabled: "true"` (the opt-out of kubernetes-sigs/windows-gmsa). The CEL
 * matchConditions keep pods without GMSA settings away, so system pods never depend on the functions.
 * Pods are created with server-side dry-run (the webhooks run, nothing is stored).
 */
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { applyBaseInfra, applyObjects, deleteWebhooks, type KubeObject } from "../../infra/local/apply.ts";
import { adminEndpoint } from "../../infra/local/cluster.ts";
import { kubeRequest } from "../../infra/local/kube-request.ts";
import { applyFunctionsWebhooks, startFunctions, type FunctionsStack } from "../../infra/local/stack.ts";
import { buildPod, container, parsed, readCredSpec, type Pod, type Status } from "./support/pods.ts";

const cluster = inject("cluster");
const admin = adminEndpoint(cluster);
const OPTED_OUT = "gmsa-opted-out";
const SERVICE_ACCOUNT = "gmsa-system";
const GROUP = "namespaces";

/** A dry-run create in `namespace`; the answer is the pod as admitted, or the refusal. */
function dryRunCreate(namespace: string, pod: Pod) {
  return kubeRequest<Pod & Status>(admin, `/api/v1/namespaces/${namespace}/pods?dryRun=All`, { method: "POST", body: pod });
}

const gmsaPod = (name: string) =>
  buildPod(GROUP, name, { serviceAccountName: SERVICE_ACCOUNT, windowsOptions: { gmsaCredentialSpecName: "webapp01" } });

let stack: FunctionsStack;
let webapp01: unknown;

/** Reviews each function has answered so far. */
async function reviewCounts() {
  const [expand, authorize] = await Promise.all([stack.metrics("expand"), stack.metrics("authorize")]);
  return { expand: expand["expand_reviews_total"] ?? 0, authorize: authorize["authorize_reviews_total"] ?? 0 };
}

beforeAll(async () => {
  await applyBaseInfra(cluster);
  const objects: KubeObject[] = [
    { apiVersion: "v1", kind: "Namespace", metadata: { name: OPTED_OUT, labels: { "windows.k8s.io/disabled": "true" } } },
    // No controller manager runs: the service accounts the pods name must be created by hand.
    ...["kube-system", OPTED_OUT].map((namespace) => ({
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name: SERVICE_ACCOUNT, namespace },
    })),
  ];
  await applyObjects(admin, objects);
  webapp01 = await readCredSpec(cluster, "webapp01");
  stack = await startFunctions(cluster, { runtime: "node", dir: cluster.dir });
  await applyFunctionsWebhooks(cluster, stack);
});

afterAll(async () => {
  await deleteWebhooks(cluster);
  await kubeRequest(admin, `/apis/rbac.authorization.k8s.io/v1/namespaces/kube-system/rolebindings/${SERVICE_ACCOUNT}-uses-webapp01`, { method: "DELETE" });
  await stack?.stop();
});

describe("namespaces the webhooks enforce", () => {
  it("reviews a GMSA pod in kube-system: 403 without `use`, expanded once granted", async () => {
    const refused = await dryRunCreate("kube-system", gmsaPod("system-refused"));
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/service account "gmsa-system".*"webapp01"/);

    await applyObjects(admin, [
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "RoleBinding",
        metadata: { name: `${SERVICE_ACCOUNT}-uses-webapp01`, namespace: "kube-system" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "gmsa-use-webapp01" },
        subjects: [{ kind: "ServiceAccount", name: SERVICE_ACCOUNT, namespace: "kube-system" }],
      },
    ]);
    const allowed = await dryRunCreate("kube-system", gmsaPod("system-allowed"));
    expect(allowed.status).toBe(201);
    expect(parsed(allowed.body.spec?.securityContext?.windowsOptions?.gmsaCredentialSpec)).toEqual(webapp01);
  });

  it("never sends a kube-system pod without GMSA settings to either function", async () => {
    const before = await reviewCounts();
    const systemPod = buildPod(GROUP, "kube-proxy-like", {
      serviceAccountName: SERVICE_ACCOUNT,
      containers: [container("proxy", { runAsUserName: "NT AUTHORITY\\SYSTEM", hostProcess: true })],
      spec: { hostNetwork: true, priorityClassName: "system-node-critical" },
    });
    const created = await dryRunCreate("kube-system", systemPod);
    expect(created.status).toBe(201);
    expect(await reviewCounts()).toEqual(before);
  });

  it('never sends a GMSA pod in a namespace labelled windows.k8s.io/disabled: "true" (left as written)', async () => {
    const before = await reviewCounts();
    const created = await dryRunCreate(OPTED_OUT, gmsaPod("opted-out"));
    expect(created.status).toBe(201);
    expect(created.body.spec?.securityContext?.windowsOptions).toEqual({ gmsaCredentialSpecName: "webapp01" });
    expect(await reviewCounts()).toEqual(before);
  });
});
