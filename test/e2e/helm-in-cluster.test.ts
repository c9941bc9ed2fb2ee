/**
 * `helm install` of infra/helm/gmsa-webhooks in inCluster mode (certificates generated at install, bearer caller
 * auth) into the local cluster, with the chart's workloads really serving: each function's Deployment, as the API
 * server stores it, runs as a pod in a network namespace (support/deployment-pod.ts: its env, its Secret volumes,
 * a token of its ServiceAccount, its user and read-only root), the chart's Service gets an EndpointSlice naming
 * that pod, and kube-apiserver (`--enable-aggregator-routing`) calls the functions through the chart's Services,
 * trusting the caBundle the chart generated. Needs root for the network namespaces, as CI has.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { CHART_DIR } from "../../infra/helm/chart-files.ts";
import { applyBaseInfra } from "../../infra/local/apply.ts";
import { adminEndpoint } from "../../infra/local/cluster.ts";
import { kubeRequest, kubeRequestOk } from "../../infra/local/kube-request.ts";
import { POD_NETWORK_CIDR } from "../../infra/local/pod-network.ts";
import { pointServiceAtPod, runDeploymentPod, type DeploymentPod } from "./support/deployment-pod.ts";
import { createHelmRunner, inClusterTestValues, type HelmRunner } from "./support/helm.ts";
import {
  createOptedOutNamespace,
  defineAdmissionTests,
  FUNCTIONS,
  deleteNamespace,
  gmsaPod,
  OPTED_OUT_NAMESPACE,
  waitForGmsaWebhooks,
  webhookConfigurationPaths,
} from "./support/install-checks.ts";
import { createPod, deletePods } from "./support/pods.ts";

const cluster = inject("cluster");
const callerToken = inject("callerToken");
const admin = adminEndpoint(cluster);
const GROUP = "helm-in-cluster";
const NAMESPACE = "gmsa-helm-in-cluster";
const RELEASE = "gwi";
const FULLNAME = `${RELEASE}-gmsa-webhooks`;
const WEBHOOK_CONFIGURATIONS = webhookConfigurationPaths(FULLNAME);
// The CRD is already there (applyBaseInfra, owned by another field manager): the chart must not take it over.
const VALUES = { ...inClusterTestValues(callerToken), crd: { install: false } };

let helm: HelmRunner;
const pods = new Map<string, DeploymentPod>();

function helmArgs(command: "install" | "upgrade"): string[] {
  return [command, RELEASE, CHART_DIR, "-n", NAMESPACE, ...(command === "install" ? ["--create-namespace"] : [])];
}

async function tlsSecret(): Promise<Record<string, string>> {
  return (await kubeRequestOk<{ data: Record<string, string> }>(admin, `/api/v1/namespaces/${NAMESPACE}/secrets/${FULLNAME}-tls`)).data;
}

async function caBundles(): Promise<string[]> {
  const configurations = await Promise.all(WEBHOOK_CONFIGURATIONS.map((path) => kubeRequestOk<{ webhooks: { clientConfig: { caBundle: string } }[] }>(admin, path)));
  return configurations.flatMap((configuration) => configuration.webhooks.map((webhook) => webhook.clientConfig.caBundle));
}

beforeAll(async () => {
  await applyBaseInfra(cluster);
  await createOptedOutNamespace(cluster);
  helm = await createHelmRunner(inject("helm"));
  const installed = await helm.run(helmArgs("install"), { values: VALUES, kubeconfig: cluster.adminKubeconfig });
  expect(installed.code, installed.stderr).toBe(0);
  for (const fn of FUNCTIONS) {
    const pod = await runDeploymentPod(cluster, NAMESPACE, `${FULLNAME}-${fn}`, cluster.dir);
    pods.set(fn, pod);
    await pointServiceAtPod(cluster, NAMESPACE, `${FULLNAME}-${fn}`, pod);
  }
  await waitForGmsaWebhooks(cluster, GROUP);
});

afterAll(async () => {
  await helm?.run(["uninstall", RELEASE, "-n", NAMESPACE], { kubeconfig: cluster.adminKubeconfig });
  await Promise.all([...pods.values()].map((pod) => pod.sandbox.stop()));
  await deletePods(cluster, GROUP);
  for (const namespace of [NAMESPACE, OPTED_OUT_NAMESPACE]) await deleteNamespace(cluster, namespace);
  await helm?.close();
});

describe("helm install, inCluster mode: the API server calls the functions through the chart's Services", () => {
  it("registers both webhooks by service reference to the chart's Services, and runs each function as its Deployment says", async () => {
    const configurations = await Promise.all(
      WEBHOOK_CONFIGURATIONS.map((path) => kubeRequestOk<{ webhooks: { clientConfig: { url?: string; service?: { name: string } } }[] }>(admin, path)),
    );
    expect(configurations.map((c) => c.webhooks.map((w) => w.clientConfig.service?.name))).toEqual(FUNCTIONS.map((fn) => [`${FULLNAME}-${fn}`]));
    expect(configurations.flatMap((c) => c.webhooks.map((w) => w.clientConfig.url))).toEqual([undefined, undefined]);
    for (const fn of FUNCTIONS) {
      const env = pods.get(fn)!.env;
      expect(env["FUNCTIONS"]).toBe(fn);
      expect(env["CALLER_AUTH"]).toBe("bearer");
      expect(env["CALLER_AUTH_TOKENS"]).toBe(callerToken);
      expect(env["KUBECONFIG"]).toBeUndefined();
    }
  });

  it("installs the default NetworkPolicy admitting the API server's range (the sandboxes have no CNI to enforce it)", async () => {
    const policy = await kubeRequestOk<{ spec: { ingress: { from: unknown[] }[] } }>(admin, `/apis/networking.k8s.io/v1/namespaces/${NAMESPACE}/networkpolicies/${FULLNAME}`);
    expect(policy.spec.ingress.map((rule) => rule.from)).toEqual([[{ ipBlock: { cidr: POD_NETWORK_CIDR } }]]);
  });

  defineAdmissionTests(cluster, GROUP, () => ({ expand: pods.get("expand")!.server.logFile, authorize: pods.get("authorize")!.server.logFile }));

  it("helm upgrade keeps the generated certificate and CA, and the running pods are still trusted", async () => {
    const [secretBefore, bundlesBefore] = [await tlsSecret(), await caBundles()];
    const upgraded = await helm.run(helmArgs("upgrade"), { values: { ...VALUES, replicaCount: 3 }, kubeconfig: cluster.adminKubeconfig });
    expect(upgraded.code, upgraded.stderr).toBe(0);
    expect(await tlsSecret()).toEqual(secretBefore);
    expect(await caBundles()).toEqual(bundlesBefore);
    const deployment = await kubeRequestOk<{ spec: { replicas: number } }>(admin, `/apis/apps/v1/namespaces/${NAMESPACE}/deployments/${FULLNAME}-expand`);
    expect(deployment.spec.replicas).toBe(3);
    const created = await createPod(cluster, gmsaPod(GROUP, "after-upgrade", "gmsa-app"));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.spec?.securityContext?.windowsOptions?.gmsaCredentialSpec).toBeDefined();
  });

  it("helm uninstall removes both webhook configurations", async () => {
    const uninstalled = await helm.run(["uninstall", RELEASE, "-n", NAMESPACE], { kubeconfig: cluster.adminKubeconfig });
    expect(uninstalled.code, uninstalled.stderr).toBe(0);
    for (const path of WEBHOOK_CONFIGURATIONS) expect((await kubeRequest(admin, path)).status).toBe(404);
  });
});
