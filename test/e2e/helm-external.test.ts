/**
 * `helm install` of infra/deploy/helm/gmsa-webhooks in external mode into the local cluster: the webhooks registered by
 * URL at Node servers on loopback (infra/local/stack.ts, as any function outside the cluster), their CA as the
 * caBundle, bearer caller auth from the API server's admission configuration, and the functions' identities bound
 * by the chart's RBAC alone (the kustomize base's bindings are removed for the duration). No workload is created.
 */
import { afterAll, beforeAll, describe, expect, inject, it, vi } from "vitest";
import { CHART_DIR } from "../../infra/build/helm/chart-dir.ts";
import {
  adminEndpoint,
  applyBaseInfra,
  kubeRequest,
  kubeRequestOk,
  startFunctions,
  type FunctionsStack,
} from "../../infra/local/index.ts";
import { functionServiceAccount } from "../../infra/local/function-tokens.ts";
import { createHelmRunner, externalTestValues, type HelmRunner } from "./support/helm.ts";
import {
  defineAdmissionTests,
  deleteNamespace,
  FUNCTIONS,
  gmsaPod,
  registeredWebhooks,
  waitForGmsaWebhooks,
} from "./support/install-checks.ts";
import { createPod, deletePods, parsed, readCredSpec } from "./support/pods.ts";

const cluster = inject("cluster");
const admin = adminEndpoint(cluster);
const GROUP = "helm-external";
const NAMESPACE = "gmsa-helm-external";
const RELEASE = "gwx";
const FULLNAME = `${RELEASE}-gmsa-webhooks`;
/** The kustomize base's bindings of the functions' identities (infra/deploy/rbac/), removed while the chart's serve. */
const BASE_BINDINGS = FUNCTIONS.map(
  (fn) => `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/gmsa-webhooks:${fn}`,
);
/** Kinds a workload install would create in the release namespace (the NetworkPolicy too: it is on by default). */
const WORKLOAD_COLLECTIONS = [
  `/apis/apps/v1/namespaces/${NAMESPACE}/deployments`,
  `/api/v1/namespaces/${NAMESPACE}/services`,
  `/api/v1/namespaces/${NAMESPACE}/serviceaccounts`,
  `/api/v1/namespaces/${NAMESPACE}/secrets`,
  `/apis/policy/v1/namespaces/${NAMESPACE}/poddisruptionbudgets`,
  `/apis/networking.k8s.io/v1/namespaces/${NAMESPACE}/networkpolicies`,
];

let helm: HelmRunner;
let stack: FunctionsStack;

beforeAll(async () => {
  await applyBaseInfra(cluster);
  for (const path of BASE_BINDINGS) await kubeRequestOk(admin, path, { method: "DELETE" });
  // The admission tests count the review lines, which allowed reviews write at debug.
  stack = await startFunctions(cluster, { runtime: "node", dir: cluster.dir, env: { LOG_LEVEL: "debug" } });
  helm = await createHelmRunner(inject("helm"), cluster.adminKubeconfig);
  // The documented install as is: the CRD applyBaseInfra put there is not the release's, so the chart leaves it alone.
  await helm.ok(
    ["install", RELEASE, CHART_DIR, "-n", NAMESPACE, "--create-namespace"],
    externalTestValues(cluster.caPem, stack),
  );
  await waitForGmsaWebhooks(cluster, GROUP);
});

afterAll(async () => {
  await helm?.run(["uninstall", RELEASE, "-n", NAMESPACE], { kubeconfig: cluster.adminKubeconfig });
  await stack?.stop();
  await deletePods(cluster, GROUP);
  await deleteNamespace(cluster, NAMESPACE);
  await applyBaseInfra(cluster);
  await helm?.close();
});

describe("helm install, external mode: the API server calls the functions by URL", () => {
  it("registers both webhooks by URL at the functions, with their CA, and creates no workload", async () => {
    const configurations = await registeredWebhooks(cluster, FULLNAME);
    expect(configurations.map((webhooks) => webhooks.map((w) => w.clientConfig.url))).toEqual([
      [`${stack.expandBaseUrl}/expand`],
      [`${stack.authorizeBaseUrl}/authorize`],
    ]);
    for (const webhook of configurations.flat()) {
      expect(webhook.clientConfig.service).toBeUndefined();
      expect(Buffer.from(webhook.clientConfig.caBundle ?? "", "base64").toString()).toBe(cluster.caPem);
    }
    const selector = encodeURIComponent(`app.kubernetes.io/instance=${RELEASE}`);
    for (const collection of WORKLOAD_COLLECTIONS) {
      const list = await kubeRequestOk<{ items: unknown[] }>(admin, `${collection}?labelSelector=${selector}`);
      expect(list.items, collection).toEqual([]);
    }
  });

  it("binds the functions' identities with the chart's RBAC only (the base's bindings are gone)", async () => {
    for (const path of BASE_BINDINGS) expect((await kubeRequest(admin, path)).status).toBe(404);
    for (const fn of FUNCTIONS) {
      const binding = await kubeRequestOk<{ subjects: { name: string }[] }>(
        admin,
        `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/${FULLNAME}:${fn}`,
      );
      expect(binding.subjects.map((s) => s.name)).toEqual([functionServiceAccount(fn)]);
    }
  });

  defineAdmissionTests(cluster, GROUP, () => stack.logFiles);

  it("shadow mode never blocks: with ENFORCEMENT=warn a GMSA pod is admitted while authorize is unreachable, refused otherwise", async () => {
    const installed = externalTestValues(cluster.caPem, stack) as {
      external: Record<string, unknown> & { authorize: Record<string, unknown> };
    };
    // Nothing listens on port 1: the API server's calls to authorize are refused at once.
    const unreachable = {
      ...installed.external,
      authorize: { ...installed.external.authorize, url: "https://127.0.0.1:1" },
    };
    const upgrade = (values: unknown) => helm.ok(["upgrade", RELEASE, CHART_DIR, "-n", NAMESPACE], values);
    // The API server reloads webhook configurations within moments: wait until a dry-run create shows `status`.
    const createdAs = (status: number) =>
      vi.waitFor(
        async () => {
          const created = await createPod(cluster, gmsaPod(GROUP, "shadow", "gmsa-app"), { dryRun: true });
          expect(created.status, JSON.stringify(created.body)).toBe(status);
          return created;
        },
        { timeout: 30_000, interval: 250 },
      );
    try {
      await upgrade({ ...installed, external: unreachable });
      expect((await createdAs(500)).body.message).toMatch(/failed calling webhook "authorize\.gmsa-webhooks/);
      await upgrade({ ...installed, external: unreachable, authorize: { env: { ENFORCEMENT: "warn" } } });
      const admitted = await createdAs(201);
      // expand still ran: the contents are inlined.
      expect(parsed(admitted.body.spec?.securityContext?.windowsOptions?.gmsaCredentialSpec)).toEqual(
        await readCredSpec(cluster, "webapp01"),
      );
    } finally {
      await upgrade(installed);
      await waitForGmsaWebhooks(cluster, GROUP);
    }
  });
});
