/**
 * What every install of the webhooks must do when the real API server admits pods, whichever way the functions
 * are reached (the chart's Service in front of pods on the local node, or URLs on loopback): the tests the Helm install files
 * share, and the setup and cleanup around them. Pods use the samples (infra/deploy/samples: `default/gmsa-app` may use
 * webapp01, `default/default` nothing).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { readFile } from "node:fs/promises";
import { expect, it, vi } from "vitest";
import {
  adminEndpoint,
  applySamples,
  installChart,
  kubeRequest,
  kubeRequestOk,
  waitForDeployments,
  type InClusterStack,
  type LocalClusterInfo,
} from "../../../infra/local/index.ts";
import { issueServingCertificate } from "../../../infra/local/pki.ts";
import { createPod, e2ePod, parsed, type Pod, readCredSpec } from "./pods.ts";
import { buildPod } from "../../support/pods.ts";
import type { Webhook } from "./manifests.ts";

/** The two functions, in the order of their webhook configurations. */
export const FUNCTIONS = ["expand", "authorize"] as const;

/** API paths of a release's MutatingWebhookConfiguration (expand) and ValidatingWebhookConfiguration (authorize). */
export function webhookConfigurationPaths(fullname: string): string[] {
  return [
    `/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/${fullname}-expand`,
    `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${fullname}-authorize`,
  ];
}

/** The webhooks of each of the release's configurations as the API server holds them: expand's, then authorize's. */
export function registeredWebhooks(cluster: LocalClusterInfo, fullname: string): Promise<Webhook[][]> {
  const admin = adminEndpoint(cluster);
  const webhooksAt = async (path: string) => (await kubeRequestOk<{ webhooks: Webhook[] }>(admin, path)).webhooks;
  return Promise.all(webhookConfigurationPaths(fullname).map(webhooksAt));
}

/** A pod of a function's Deployment, with the fields the tests read. */
export interface FunctionPod {
  metadata: { name: string; uid: string; deletionTimestamp?: string };
  status?: {
    podIP?: string;
    conditions?: { type: string; status: string }[];
    containerStatuses?: { restartCount: number; ready: boolean; started?: boolean }[];
  };
}

/** The pods of `fn` of the release `fullname` in `namespace`, those being deleted left out. */
export async function functionPods(
  cluster: LocalClusterInfo,
  namespace: string,
  fullname: string,
  fn: string,
): Promise<FunctionPod[]> {
  const selector = encodeURIComponent(`app.kubernetes.io/component=${fn}`);
  const pods = await kubeRequestOk<{ items: FunctionPod[] }>(
    adminEndpoint(cluster),
    `/api/v1/namespaces/${namespace}/pods?labelSelector=${selector}`,
  );
  return pods.items.filter(
    (pod) => pod.metadata.name.startsWith(`${fullname}-${fn}-`) && pod.metadata.deletionTimestamp === undefined,
  );
}

/** Whether the pod's Ready condition is True. */
export const isReady = (pod: FunctionPod) =>
  pod.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") === true;

/** Where each function logs one JSON line per review (at `LOG_LEVEL=debug` for allowed ones): one file, or one per replica. */
export type ReviewLogs = Record<"expand" | "authorize", string | string[]>;

/** Reviews logged so far by each function (`"msg":"review"` lines). */
export async function countReviews(logs: ReviewLogs): Promise<Record<"expand" | "authorize", number>> {
  const countOne = async (file: string) =>
    (await readFile(file, "utf8").catch(() => "")).split("\n").filter((line) => line.includes('"msg":"review"')).length;
  const count = async (files: string | string[]) =>
    (await Promise.all([files].flat().map(countOne))).reduce((sum, n) => sum + n, 0);
  const read = async () => ({ expand: await count(logs.expand), authorize: await count(logs.authorize) });
  // A review's log line leaves the server after its answer (one write per event-loop turn) and reaches the file
  // through the parent's pipe: count once two reads 300 ms apart agree, so a line still on its way is not missed.
  let last = await read();
  for (let attempt = 0; attempt < 10; attempt++) {
    await sleep(300);
    const next = await read();
    if (next.expand === last.expand && next.authorize === last.authorize) return next;
    last = next;
  }
  return last;
}

/** A pod of `group` naming webapp01 at pod level, as `serviceAccountName` (default: the namespace's `default`). */
export function gmsaPod(group: string, name: string, serviceAccountName?: string): Pod {
  return buildPod({
    ...e2ePod(group, name),
    ...(serviceAccountName ? { serviceAccountName } : {}),
    windowsOptions: { gmsaCredentialSpecName: "webapp01" },
  });
}

/**
 * `helm install` of the chart on the stack's node with `values`, the samples applied, both Deployments at two Ready
 * replicas and both webhooks answering pods of `group` through the API server.
 */
export async function installOnNode(
  stack: InClusterStack,
  { release, namespace, values, group }: { release: string; namespace: string; values: unknown; group: string },
): Promise<void> {
  await installChart(stack, release, namespace, values);
  await applySamples(stack.cluster);
  await waitForDeployments(stack.cluster, namespace, `${release}-gmsa-webhooks`, 2);
  await waitForGmsaWebhooks(stack.cluster, group);
}

/**
 * Polls with dry-run creates until the API server calls both functions: a pod of `gmsa-app` comes back expanded
 * and one of `default` is refused with 403 (each webhook configuration and the Service's EndpointSlice reach the
 * admission plugins through informers of their own). @throws the last failed expectation after 30 s.
 */
export async function waitForGmsaWebhooks(cluster: LocalClusterInfo, group: string): Promise<void> {
  await vi.waitFor(
    async () => {
      const expanded = await createPod(cluster, gmsaPod(group, "probe-allowed", "gmsa-app"), { dryRun: true });
      expect(expanded.status, JSON.stringify(expanded.body)).toBe(201);
      expect(expanded.body.spec?.securityContext?.windowsOptions?.gmsaCredentialSpec).toBeDefined();
      const refused = await createPod(cluster, gmsaPod(group, "probe-refused"), { dryRun: true });
      expect(refused.status, JSON.stringify(refused.body)).toBe(403);
    },
    { timeout: 30_000, interval: 250 },
  );
}

/**
 * Writes the `kubernetes.io/tls` Secret `name` in `namespace` (`create`: POST, else PUT) with a new leaf from the
 * cluster's CA for `hosts`. @returns the leaf's PEM.
 */
export async function writeTlsSecret(
  cluster: LocalClusterInfo,
  { namespace, name, hosts, create = true }: { namespace: string; name: string; hosts: string[]; create?: boolean },
): Promise<string> {
  const ca = { certFile: cluster.caFile, keyFile: `${cluster.dir}/ca.key`, certPem: cluster.caPem };
  const pair = await issueServingCertificate(ca, `${cluster.dir}/certs`, `${name}-${Date.now()}`, hosts);
  const base64 = (pem: string) => Buffer.from(pem).toString("base64");
  const data = { "tls.crt": base64(pair.certPem), "tls.key": base64(pair.keyPem) };
  await kubeRequestOk(adminEndpoint(cluster), `/api/v1/namespaces/${namespace}/secrets${create ? "" : `/${name}`}`, {
    method: create ? "POST" : "PUT",
    body: { apiVersion: "v1", kind: "Secret", type: "kubernetes.io/tls", metadata: { name, namespace }, data },
  });
  return pair.certPem;
}

/** The GMSACredentialSpec CRD. */
export const CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gmsacredentialspecs.windows.k8s.io";

/** Deletes the CRD, and with it every credspec, and waits until it is gone. */
export async function deleteCrd(cluster: LocalClusterInfo): Promise<void> {
  const admin = adminEndpoint(cluster);
  await kubeRequest(admin, CRD_PATH, { method: "DELETE" });
  await vi.waitFor(async () => expect((await kubeRequest(admin, CRD_PATH)).status).toBe(404), {
    timeout: 60_000,
    interval: 250,
  });
}

/** Namespaced kinds a test namespace may hold, by collection path under `/namespaces/<ns>/`. */
const NAMESPACED_COLLECTIONS = [
  "/api/v1/namespaces/{ns}/pods",
  "/api/v1/namespaces/{ns}/secrets",
  "/api/v1/namespaces/{ns}/configmaps",
  "/api/v1/namespaces/{ns}/serviceaccounts",
  "/api/v1/namespaces/{ns}/services",
  "/apis/discovery.k8s.io/v1/namespaces/{ns}/endpointslices",
  "/apis/apps/v1/namespaces/{ns}/deployments",
  "/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets",
  "/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/roles",
  "/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/rolebindings",
];

/**
 * Deletes a namespace the way the namespace controller would (none runs here): its objects first, then the
 * namespace, then the `kubernetes` finalizer, so it is gone rather than left Terminating. Absent ones are fine.
 */
export async function deleteNamespace(cluster: LocalClusterInfo, namespace: string): Promise<void> {
  const admin = adminEndpoint(cluster);
  for (const collection of NAMESPACED_COLLECTIONS) {
    const path = collection.replace("{ns}", namespace);
    const { status, body } = await kubeRequest<{ items?: { metadata: { name: string } }[] }>(admin, path);
    if (status !== 200) continue;
    for (const item of body.items ?? [])
      await kubeRequest(admin, `${path}/${item.metadata.name}`, { method: "DELETE" });
  }
  const deleted = await kubeRequest(admin, `/api/v1/namespaces/${namespace}`, { method: "DELETE" });
  if (deleted.status === 404) return;
  await kubeRequest(admin, `/api/v1/namespaces/${namespace}/finalize`, {
    method: "PUT",
    body: { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace }, spec: { finalizers: [] } },
  });
}

/**
 * The admission tests every install shares, registered in the caller's `describe`: expand inlines the credspec and
 * authorize refuses a service account without `use`. `logs` returns where the functions log (known once the
 * install's `beforeAll` ran). Which pods and namespaces reach the functions is the webhooks' own, equal to the
 * kustomize base's (helm-chart.test.ts): webhook-config.test.ts and namespaces.test.ts.
 */
export function defineAdmissionTests(cluster: LocalClusterInfo, group: string, logs: () => ReviewLogs): void {
  it("expands a GMSA pod: the API server calls expand, which inlines the credspec", async () => {
    const before = await countReviews(logs());
    const created = await createPod(cluster, gmsaPod(group, "expanded", "gmsa-app"));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(parsed(created.body.spec?.securityContext?.windowsOptions?.gmsaCredentialSpec)).toEqual(
      await readCredSpec(cluster, "webapp01"),
    );
    const after = await countReviews(logs());
    expect(after.expand).toBe(before.expand + 1);
    expect(after.authorize).toBe(before.authorize + 1);
  });

  it("denies a service account without `use` (403 naming the credspec)", async () => {
    const refused = await createPod(cluster, gmsaPod(group, "refused"));
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/service account "default".*"webapp01"/s);
  });
}
