/**
 * Webhooks registered by service reference, resolved by the real API server (`--enable-aggregator-routing`) to
 * the address in the Service's EndpointSlice: our Node server runs as a "pod" in a network namespace
 * (infra/local/pod-sandbox.ts) with in-cluster credentials (a service-account token volume and the `kubernetes`
 * Service), and the API server calls it through a Service made here by hand. The Helm chart's tests
 * (helm-*.test.ts) use the same sandbox with the objects the chart renders. Needs root, as CI has.
 */
import { afterAll, beforeAll, describe, expect, inject, it, vi } from "vitest";
import { applyBaseInfra, applyObjects, deleteWebhooks, renderWebhooks, type KubeObject } from "../../infra/local/apply.ts";
import { adminEndpoint, issueClusterServingCertificate } from "../../infra/local/cluster.ts";
import { FUNCTIONS_NAMESPACE } from "../../infra/local/function-tokens.ts";
import { kubeRequest } from "../../infra/local/kube-request.ts";
import { nodeBinary } from "../../infra/local/node-binary.ts";
import { startPodSandbox, type PodSandbox, type StartedPodContainer } from "../../infra/local/pod-sandbox.ts";
import { serviceAccountVolume } from "../../infra/local/service-account-volume.ts";
import { pointServiceAt } from "../../infra/local/service-endpoints.ts";
import { buildPod, createPod, deletePods, parsed, readCredSpec } from "./support/pods.ts";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

const cluster = inject("cluster");
const callerToken = inject("callerToken");
const admin = adminEndpoint(cluster);
const GROUP = "service-reference";
const SERVICE = "gmsa-webhooks-sandbox";
const TLS_DIR = "/tls";
const NODE_ENTRY = fileURLToPath(new URL("../../functions/node/index.ts", import.meta.url));

/** infra/webhooks/ with each `url` replaced by a reference to {@link SERVICE}, port 443, the same path. */
async function webhooksByService(caBundlePem: string): Promise<KubeObject[]> {
  const objects = await renderWebhooks({ expandUrl: "https://unused", authorizeUrl: "https://unused", caBundlePem });
  for (const object of objects) {
    for (const webhook of object.webhooks as { clientConfig: { url?: string; service?: unknown; caBundle?: string } }[]) {
      const path = new URL(webhook.clientConfig.url!).pathname;
      webhook.clientConfig = {
        service: { namespace: FUNCTIONS_NAMESPACE, name: SERVICE, port: 443, path },
        caBundle: webhook.clientConfig.caBundle!,
      };
    }
  }
  return objects;
}

let sandbox: PodSandbox;
let server: StartedPodContainer;
let webapp01: unknown;

beforeAll(async () => {
  await applyBaseInfra(cluster);
  webapp01 = await readCredSpec(cluster, "webapp01");
  sandbox = await startPodSandbox(cluster, { dir: cluster.dir, hostname: SERVICE });
  // The API server checks the certificate against `<service>.<namespace>.svc`, the name it calls a Service by.
  const serving = await issueClusterServingCertificate(cluster, [`${SERVICE}.${FUNCTIONS_NAMESPACE}.svc`]);
  server = await sandbox.startContainer({
    name: "functions",
    command: nodeBinary(),
    args: [NODE_ENTRY],
    env: {
      PORT: "8443",
      TLS_CERT_FILE: `${TLS_DIR}/tls.crt`,
      TLS_KEY_FILE: `${TLS_DIR}/tls.key`,
      CALLER_AUTH: "bearer",
      CALLER_AUTH_TOKENS: callerToken,
    },
    // As the chart's pods run: a user other than root, and nothing written to the root file system.
    runAsUser: 1000,
    readOnlyRootFilesystem: true,
    volumes: [
      { mountPath: TLS_DIR, files: { "tls.crt": await readFile(serving.certFile, "utf8"), "tls.key": await readFile(serving.keyFile, "utf8") } },
      await serviceAccountVolume(cluster, FUNCTIONS_NAMESPACE, "gmsa-authorize"),
    ],
  });
  await sandbox.waitForPort(server, 8443);
  await applyObjects(admin, [
    {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: SERVICE, namespace: FUNCTIONS_NAMESPACE },
      spec: { ports: [{ name: "https", port: 443, targetPort: 8443 }] },
    },
  ]);
  await pointServiceAt(admin, { namespace: FUNCTIONS_NAMESPACE, service: SERVICE, ip: sandbox.podIp, ports: [{ name: "https", port: 8443 }] });
  await applyObjects(admin, await webhooksByService(cluster.caPem));
});

afterAll(async () => {
  await deleteWebhooks(cluster);
  await deletePods(cluster, GROUP);
  for (const path of [
    `/api/v1/namespaces/${FUNCTIONS_NAMESPACE}/services/${SERVICE}`,
    `/apis/discovery.k8s.io/v1/namespaces/${FUNCTIONS_NAMESPACE}/endpointslices/${SERVICE}-sandbox`,
  ]) {
    await kubeRequest(admin, path, { method: "DELETE" });
  }
  await sandbox?.stop();
});

describe("webhooks by service reference, resolved to a server in a network namespace", () => {
  it("expands a GMSA pod through the Service: the server ran in-cluster, as gmsa-authorize", async () => {
    const pod = buildPod(GROUP, "by-service-allowed", { serviceAccountName: "gmsa-app", windowsOptions: { gmsaCredentialSpecName: "webapp01" } });
    // Each configuration reaches the admission plugins through its informer: poll until the webhooks run.
    const created = await vi.waitFor(
      async () => {
        const response = await createPod(cluster, pod, { dryRun: true });
        expect(response.status, JSON.stringify(response.body)).toBe(201);
        expect(response.body.spec?.securityContext?.windowsOptions?.gmsaCredentialSpec).toBeDefined();
        return response;
      },
      { timeout: 30_000, interval: 250 },
    );
    expect(parsed(created.body.spec?.securityContext?.windowsOptions?.gmsaCredentialSpec)).toEqual(webapp01);
    expect(await readFile(server.logFile, "utf8")).toMatch(/"function":"expand"/);
  });

  it("denies a service account without `use` through the Service (403 naming the credspec)", async () => {
    const pod = buildPod(GROUP, "by-service-refused", { windowsOptions: { gmsaCredentialSpecName: "webapp01" } });
    const refused = await vi.waitFor(
      async () => {
        const response = await createPod(cluster, pod);
        expect(response.status, JSON.stringify(response.body)).toBe(403);
        return response;
      },
      { timeout: 30_000, interval: 250 },
    );
    expect(refused.body.message).toMatch(/authorize\.gmsa-webhooks\.windows\.k8s\.io.*service account "default".*"webapp01"/s);
  });
});
