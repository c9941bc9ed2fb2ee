/**
 * The chart as an operator installs it, on a real node: a cluster of this file's own with kube-controller-manager,
 * kube-scheduler and one node (kubelet, containerd, runc, CNI: infra/local/node.ts) running the production image
 * (`npm run image`), `helm install` in inCluster mode with the project's Helm, and the API server calling the
 * functions' pods through the chart's Services. One node serves every test here (one node per machine; starting it
 * takes about 10 s). API server and node are of `KUBE_VERSION` (the e2e tier: the newest pinned; e2e-floor: 1.30).
 * Needs root, as the kubelet does and CI has.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { mkdtemp } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminEndpoint, applyObjects, createCallerToken, kubeRequest, kubeRequestOk } from "../../infra/local/index.ts";
import {
  localNodeValues,
  startInClusterStack,
  waitForDeployments,
  type InClusterStack,
} from "../../infra/local/in-cluster.ts";
import { CHART_DIR } from "../../infra/build/helm/chart-dir.ts";
import { resolveKubeRelease } from "../../infra/local/kube-versions.ts";
import { NODE_NAME, POD_CIDR } from "../../infra/local/node-config.ts";
import { createCertificateAuthority } from "../../infra/local/pki.ts";
import {
  defineAdmissionTests,
  FUNCTIONS,
  functionPods,
  gmsaPod,
  installOnNode,
  isReady,
  registeredWebhooks,
  type FunctionPod,
  waitForGmsaWebhooks,
  webhookConfigurationPaths,
  writeTlsSecret,
} from "./support/install-checks.ts";
import { podLogFiles, podServerProcesses, readMemoryCgroup } from "./support/node-pods.ts";
import { createPod } from "./support/pods.ts";
import { namespace } from "./support/core-objects.ts";
import { createDoctorOperator, expectDoctorFaultUntil, expectDoctorHealthy, runDoctor } from "./support/doctor.ts";
import { expectSampleShape } from "./support/doctor-samples.ts";

const GROUP = "helm-in-cluster";
const NAMESPACE = "gmsa-helm-in-cluster";
const RELEASE = "gwi";
const FULLNAME = `${RELEASE}-gmsa-webhooks`;
/** The release installed with a TLS Secret of the operator's, after the first is uninstalled. */
const SECRET_NAMESPACE = "gmsa-helm-secret";
const SECRET_RELEASE = "gws";
const SECRET_FULLNAME = `${SECRET_RELEASE}-gmsa-webhooks`;
const MEMORY_LIMIT = 128 * 2 ** 20;

let stack: InClusterStack;
let values: Record<string, unknown>;

const admin = () => adminEndpoint(stack.cluster);
/** Polls the real CLI, as the admin, until it names `fault` alone; then `undo` and polls until it passes again. */
const expectFaultUntil = (undo: () => Promise<unknown>, fault: RegExp, timeoutMs = 30_000, healthyMs = 60_000) =>
  expectDoctorFaultUntil(stack.cluster.adminKubeconfig, fault, undo, { timeoutMs, healthyMs });
const waitForReplicas = () => waitForDeployments(stack.cluster, NAMESPACE, FULLNAME, 2);
/** `helm upgrade --force-conflicts` back to the install's values (Helm 4 applies server-side), both rolled out. */
async function reinstall(): Promise<void> {
  await upgrade(values, "--force-conflicts");
  await waitForReplicas();
}

const tlsSecret = async () =>
  (await kubeRequestOk<{ data: unknown }>(admin(), `/api/v1/namespaces/${NAMESPACE}/secrets/${FULLNAME}-tls`)).data;
const pods = (fn: string) => functionPods(stack.cluster, NAMESPACE, FULLNAME, fn);
async function upgrade(upgradeValues: unknown, ...flags: string[]): Promise<void> {
  const upgraded = await stack.runHelm(["upgrade", RELEASE, CHART_DIR, "-n", NAMESPACE, ...flags], upgradeValues);
  expect(upgraded.code, upgraded.stderr).toBe(0);
}

beforeAll(async () => {
  stack = await startInClusterStack({ progress: (message) => process.stderr.write(`[helm-in-cluster] ${message}\n`) });
  // The admission tests count the review lines, which allowed reviews write at debug.
  values = { ...localNodeValues(stack.image, stack.callerToken), env: { LOG_LEVEL: "debug" } };
  await installOnNode(stack, { release: RELEASE, namespace: NAMESPACE, values, group: GROUP });
}, 600_000);

afterAll(async () => {
  await stack?.stop();
}, 120_000);

describe("helm install on a real node, certificates generated at install", () => {
  it("runs the node's kubelet of the API server's own version (KUBE_VERSION picks both)", async () => {
    const node = await kubeRequestOk<{ status: { nodeInfo: { kubeletVersion: string } } }>(
      admin(),
      `/api/v1/nodes/${NODE_NAME}`,
    );
    expect(node.status.nodeInfo.kubeletVersion).toBe(stack.cluster.kubeVersion);
    expect(stack.cluster.kubeVersion).toBe(resolveKubeRelease(process.env.KUBE_VERSION).version);
  });

  it("runs two Ready replicas per function from the imported image and registers both webhooks by service reference", async () => {
    for (const fn of FUNCTIONS) {
      expect((await pods(fn)).filter(isReady)).toHaveLength(2);
    }
    const configurations = await registeredWebhooks(stack.cluster, FULLNAME);
    expect(configurations.map((webhooks) => webhooks.map((w) => w.clientConfig.service?.name))).toEqual(
      FUNCTIONS.map((fn) => [`${FULLNAME}-${fn}`]),
    );
    const policy = await kubeRequestOk<{ spec: { ingress: { from: unknown[] }[] } }>(
      admin(),
      `/apis/networking.k8s.io/v1/namespaces/${NAMESPACE}/networkpolicies/${FULLNAME}`,
    );
    expect(policy.spec.ingress.map((rule) => rule.from)).toEqual([[{ ipBlock: { cidr: POD_CIDR } }]]);
  });

  it("passes kubectl gmsa doctor on the chart's install, run by an operator bound to doctor's roles alone", async () => {
    const operator = await createDoctorOperator(stack.cluster, "doctor-operator");
    await operator.bind({ probe: "default", functions: NAMESPACE });
    try {
      const findings = await expectDoctorHealthy(operator.kubeconfig);
      const report = findings.map((f) => `${f.status} ${f.check}: ${f.message}`).join("\n");
      const message = (check: string) => findings.find((f) => f.check === check)?.message;
      // /readyz answers text through the service proxy, which the CLI's own kube client must read as such.
      for (const fn of FUNCTIONS) {
        expect(message(`readyz/${fn}`), report).toMatch(/through the API server's service proxy answered 200/);
        expect(message(`rbac/${fn}`), report).toMatch(
          new RegExp(`system:serviceaccount:${NAMESPACE}:${FULLNAME}-${fn} may`),
        );
      }
      for (const check of ["end-to-end/may-use", "end-to-end/may-not-use"])
        expect(findings.find((f) => f.check === check)?.status, report).toBe("pass");
      process.stderr.write(`[helm-in-cluster] doctor:\n${report}\n`);
    } finally {
      await operator.remove();
    }
  });

  it("prints what the samples of README.md and docs/doctor.md show, modulo numbers (exit 0)", async () => {
    const { stdout, code } = await runDoctor(stack.cluster.adminKubeconfig);
    expect(code, stdout).toBe(0);
    process.stderr.write(`[helm-in-cluster] doctor, text:\n${stdout}`);
    await expectSampleShape("README.md", stdout);
    await expectSampleShape("docs/doctor.md", stdout);
  });

  it("names a caBundle of another CA on a service reference from the API server's own x509 error, and only that", async () => {
    const [expandPath] = webhookConfigurationPaths(FULLNAME);
    const original = (await registeredWebhooks(stack.cluster, FULLNAME))[0]![0]!.clientConfig.caBundle!;
    const other = await createCertificateAuthority(await mkdtemp(join(stack.cluster.dir, "other-ca-")), "another CA");
    const setCaBundle = (caBundle: string) =>
      kubeRequestOk(admin(), expandPath!, {
        method: "PATCH",
        contentType: "application/json-patch+json",
        body: [{ op: "replace", path: "/webhooks/0/clientConfig/caBundle", value: caBundle }],
      });
    await setCaBundle(Buffer.from(other.certPem).toString("base64"));
    // Both probes meet it (expand is called for the pod authorize should refuse too): the first names it.
    await expectFaultUntil(
      async () => {
        await setCaBundle(original);
        await waitForGmsaWebhooks(stack.cluster, GROUP);
      },
      new RegExp(
        `^end-to-end/may-use: .*the caBundle of ${FULLNAME}-expand does not verify the certificate the Service of expand serves \\(x509: `,
      ),
    );
  }, 240_000);

  describe("admission through the pods", () => {
    // Created lazily: the cluster exists only once beforeAll ran.
    const lazyCluster = new Proxy({} as InClusterStack["cluster"], {
      get: (_, key) => stack.cluster[key as keyof InClusterStack["cluster"]],
    });
    defineAdmissionTests(lazyCluster, GROUP, () => ({
      expand: podLogFiles(stack.node.dir, NAMESPACE, `${FULLNAME}-expand-`),
      authorize: podLogFiles(stack.node.dir, NAMESPACE, `${FULLNAME}-authorize-`),
    }));
  });

  it("runs each server as uid 1000 with no capabilities, no new privileges, a seccomp filter and a read-only root", () => {
    const servers = podServerProcesses();
    expect(servers).toHaveLength(4);
    for (const server of servers) {
      expect(server.uids).toEqual([1000, 1000, 1000, 1000]);
      expect(BigInt(`0x${server.capEff}`)).toBe(0n);
      expect(server.noNewPrivs).toBe(1);
      expect(server.seccomp).toBe(2);
      expect(server.rootOptions).toContain("ro");
    }
  });

  it("holds each server to a 128 MiB memory cgroup that 400 reviews under load do not reach", async () => {
    const servers = podServerProcesses();
    for (const server of servers)
      expect(readMemoryCgroup(server.memoryCgroup, "memory.limit_in_bytes")).toBe(MEMORY_LIMIT);
    let next = 0;
    const failures: number[] = [];
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < 400) {
          next++;
          const created = await createPod(stack.cluster, gmsaPod(GROUP, `load-${next}`, "gmsa-app"), { dryRun: true });
          if (created.status !== 201) failures.push(created.status);
        }
      }),
    );
    expect(failures).toEqual([]);
    for (const server of servers) {
      expect(readMemoryCgroup(server.memoryCgroup, "memory.failcnt")).toBe(0);
      expect(readMemoryCgroup(server.memoryCgroup, "memory.max_usage_in_bytes")).toBeLessThan(MEMORY_LIMIT);
    }
    for (const fn of FUNCTIONS) {
      for (const pod of await pods(fn)) expect(pod.status?.containerStatuses?.[0]?.restartCount).toBe(0);
    }
  }, 180_000);

  it("keeps a replica that fails its readiness probe out of service while the others serve, and the certificate across upgrades", async () => {
    const secretBefore = await tlsSecret();
    const before = new Set((await pods("expand")).map((pod) => pod.metadata.name));
    await upgrade({ ...values, probes: { readiness: { path: "/not-ready" } } });
    // The rollout's surge pod starts and passes its startup probe (/healthz); its readiness probe answers 404.
    let surge: FunctionPod | undefined;
    for (let attempt = 0; attempt < 120 && surge === undefined; attempt++) {
      await sleep(500);
      surge = (await pods("expand")).find(
        (pod) => !before.has(pod.metadata.name) && pod.status?.containerStatuses?.[0]?.started === true,
      );
    }
    expect(surge, "the upgrade's new expand pod, started").toBeDefined();
    // Readiness is probed every 5 s: a few periods in which it would have turned Ready.
    await sleep(12_000);
    const ready = (await pods("expand")).filter(isReady);
    expect(ready.map((pod) => pod.metadata.name)).not.toContain(surge!.metadata.name);
    expect(ready).toHaveLength(2);
    const slices = await kubeRequestOk<{
      items: { endpoints?: { targetRef?: { name: string }; conditions?: { ready?: boolean } }[] }[];
    }>(
      admin(),
      `/apis/discovery.k8s.io/v1/namespaces/${NAMESPACE}/endpointslices?labelSelector=${encodeURIComponent(`kubernetes.io/service-name=${FULLNAME}-expand`)}`,
    );
    const readyEndpoints = slices.items
      .flatMap((slice) => slice.endpoints ?? [])
      .filter((e) => e.conditions?.ready)
      .map((e) => e.targetRef?.name);
    expect(readyEndpoints).not.toContain(surge!.metadata.name);
    const created = await createPod(stack.cluster, gmsaPod(GROUP, "during-broken-rollout", "gmsa-app"));
    expect(created.status, JSON.stringify(created.body)).toBe(201);

    await upgrade(values);
    await waitForReplicas();
    expect(await tlsSecret()).toEqual(secretBefore);
    const after = await createPod(stack.cluster, gmsaPod(GROUP, "after-upgrade", "gmsa-app"));
    expect(after.status, JSON.stringify(after.body)).toBe(201);
  }, 240_000);

  it("names authorize's failurePolicy Ignore in enforce mode (kubectl patch), which `helm upgrade --force-conflicts` undoes on Helm 4", async () => {
    const [, authorizePath] = webhookConfigurationPaths(FULLNAME);
    await kubeRequestOk(admin(), authorizePath!, {
      method: "PATCH",
      contentType: "application/json-patch+json",
      body: [{ op: "replace", path: "/webhooks/0/failurePolicy", value: "Ignore" }],
    });
    const [failed] = await expectFaultUntil(
      reinstall,
      /^webhooks\/authorize: .*failurePolicy is Ignore, not Fail: GMSA pods are admitted unchecked/,
    );
    expect(failed?.fix).toContain("helm upgrade --force-conflicts");
  }, 240_000);

  // An identity's RBAC removed, a credspec without Sid, a Deployment naming a missing credspec: doctor.test.ts (they do
  // not depend on the install; the chart's identities are the ones the passing run above names).
  it("names a caller token authorize's pods no longer accept (rotated on their side only) once, with its fix", async () => {
    // The API server keeps sending the install's token; authorize's pods roll to accept only another.
    const rotated = {
      ...values,
      callerAuth: { ...(values.callerAuth as Record<string, unknown>), authorize: createCallerToken() },
    };
    await upgrade(rotated, "--force-conflicts");
    const [failed] = await expectFaultUntil(
      reinstall,
      /^end-to-end\/may-use: .*authorize refuses the caller credential the API server sends \(401\)/,
      90_000,
      90_000,
    );
    expect(failed?.fix).toMatch(/CALLER_AUTH_TOKENS or CALLER_AUTH_PATH_SECRET/);
  }, 300_000);

  it("names authorize scaled to 0 replicas, once, with the command that scales it up (the real CLI, exit 1)", async () => {
    const deployment = `/apis/apps/v1/namespaces/${NAMESPACE}/deployments/${FULLNAME}-authorize`;
    const scale = (replicas: number) =>
      kubeRequestOk(admin(), deployment, {
        method: "PATCH",
        contentType: "application/merge-patch+json",
        body: { spec: { replicas } },
      });
    await scale(0);
    // Until its pods are gone the proxy may still reach one: polled until doctor sees what an operator would.
    const [failed] = await expectFaultUntil(
      async () => {
        await scale(2);
        await waitForReplicas();
      },
      new RegExp(`^readyz/authorize: .*Deployment ${NAMESPACE}/${FULLNAME}-authorize is scaled to 0 replicas`),
      60_000,
    );
    expect(failed?.fix).toBe(`kubectl scale deployment -n ${NAMESPACE} ${FULLNAME}-authorize --replicas=2`);
  }, 240_000);

  it("helm uninstall removes both webhook configurations", async () => {
    const uninstalled = await stack.runHelm(["uninstall", RELEASE, "-n", NAMESPACE]);
    expect(uninstalled.code, uninstalled.stderr).toBe(0);
    for (const path of webhookConfigurationPaths(FULLNAME)) expect((await kubeRequest(admin(), path)).status).toBe(404);
  });
});

describe("helm install on a real node with a TLS Secret the operator provides", () => {
  it("serves with that certificate, trusted through the caBundle given", async () => {
    const { cluster } = stack;
    const hosts = FUNCTIONS.map((fn) => `${SECRET_FULLNAME}-${fn}.${SECRET_NAMESPACE}.svc`);
    await applyObjects(admin(), [namespace(SECRET_NAMESPACE)]);
    await writeTlsSecret(cluster, { namespace: SECRET_NAMESPACE, name: "operator-tls", hosts });
    const certificates = { secretName: "operator-tls", caBundle: Buffer.from(cluster.caPem).toString("base64") };
    const tlsValues = { ...values, crd: { install: false }, certificates };
    await installOnNode(stack, {
      release: SECRET_RELEASE,
      namespace: SECRET_NAMESPACE,
      values: tlsValues,
      group: GROUP,
    });
    const created = await createPod(cluster, gmsaPod(GROUP, "with-provided-secret", "gmsa-app"));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.spec?.securityContext?.windowsOptions?.gmsaCredentialSpec).toBeDefined();
    const [expand] = await registeredWebhooks(cluster, SECRET_FULLNAME);
    expect(expand!.map((w) => w.clientConfig.caBundle)).toEqual([certificates.caBundle]);
  }, 240_000);
});
