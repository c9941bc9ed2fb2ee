/**
 * The webhook configurations in infra/deploy/webhooks/ against the real API server: it accepts their CEL
 * matchConditions, and calls the webhooks (here a recording stand-in) for exactly the pods that
 * mention a GMSA. The rules and conditions are applied verbatim; only the configuration names and
 * the namespace selector change, so this file cannot disturb other tests' webhooks.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  adminEndpoint,
  applyBaseInfra,
  applyObjects,
  applyWebhooks,
  deleteWebhooks,
  issueClusterServingCertificate,
  kubeRequest,
  kubeRequestOk,
  objectPath,
  renderWebhooks,
  type KubeObject,
} from "../../infra/local/index.ts";
import { startRecordingWebhook, type RecordingWebhook } from "./recording-webhook.ts";
import { container, e2ePod, type PodOptions } from "./support/pods.ts";
import { buildPod } from "../support/pods.ts";
import { namespace, serviceAccount } from "./support/core-objects.ts";
import { registeredWebhooks, webhookConfigurationPaths } from "./support/install-checks.ts";

const cluster = inject("cluster");
const admin = adminEndpoint(cluster);
const NAMESPACE = "cel-check";
const PODS = `/api/v1/namespaces/${NAMESPACE}/pods`;
const POD_NAME = "pod.alpha.windows.kubernetes.io/gmsa-credential-spec-name";

const named = { gmsaCredentialSpecName: "webapp01" };
const inlined = { gmsaCredentialSpec: "{}" };
const pod = (name: string, options: PodOptions = {}) => buildPod({ ...e2ePod("webhook-config", name), ...options });

let webhook: RecordingWebhook;
let configurations: KubeObject[] = [];

/** Paths called for `name` since `from`, sorted (both webhooks or neither). */
function pathsCalled(name: string, from: number): string[] {
  return webhook.reviews
    .slice(from)
    .filter((review) => review.name === name)
    .map((review) => review.path)
    .sort();
}

async function dryRunCreate(body: unknown): Promise<void> {
  await kubeRequestOk(admin, `${PODS}?dryRun=All`, { method: "POST", body });
}

beforeAll(async () => {
  await applyBaseInfra(cluster);
  const certificate = await issueClusterServingCertificate(cluster, ["127.0.0.1"]);
  webhook = await startRecordingWebhook(certificate.certPem, certificate.keyPem);

  await applyObjects(admin, [namespace(NAMESPACE), serviceAccount("default", NAMESPACE)]);
  // Created before the webhooks exist, so that updates can remove a GMSA reference later.
  for (const body of [pod("plain"), pod("annotated", { annotations: { [POD_NAME]: "webapp01" } })]) {
    await kubeRequest(admin, `${PODS}/${body.metadata!.name}`, { method: "DELETE" });
    await kubeRequestOk(admin, PODS, { method: "POST", body });
  }

  configurations = await renderWebhooks({
    expandUrl: webhook.url,
    authorizeUrl: webhook.url,
    caBundlePem: cluster.caPem,
  });
  for (const configuration of configurations) {
    configuration.metadata.name = `cel-check-${configuration.metadata.name}`;
    for (const entry of configuration.webhooks as { name: string; namespaceSelector: unknown }[]) {
      entry.name = `cel-check-${entry.name}`;
      entry.namespaceSelector = { matchLabels: { "kubernetes.io/metadata.name": NAMESPACE } };
    }
  }
  await applyObjects(admin, configurations);

  // The admission plugins see new configurations through an informer: wait until they call us.
  for (let attempt = 0; !webhook.reviews.some((r) => r.name.startsWith("probe")); attempt++) {
    if (attempt > 100) throw new Error("the API server never called the recording webhook");
    await dryRunCreate(pod(`probe-${attempt}`, { windowsOptions: named }));
    await sleep(100);
  }
});

afterAll(async () => {
  for (const configuration of configurations) {
    await kubeRequest(admin, objectPath(configuration), { method: "DELETE" });
  }
  // Pods never scheduled are deleted at once; the namespace stays (no namespace controller runs).
  for (const name of ["plain", "annotated"]) await kubeRequest(admin, `${PODS}/${name}`, { method: "DELETE" });
  await webhook?.close();
});

describe("webhook configurations (infra/deploy/webhooks)", () => {
  it("are accepted by the API server with their CEL matchConditions", async () => {
    // As stored: an API server without matchConditions would drop them silently.
    for (const [stored] of await registeredWebhooks(cluster, "cel-check-gmsa-webhooks"))
      expect(stored!.matchConditions?.map((c) => c.name)).toEqual(["has-gmsa-reference"]);
  });

  it.each([
    ["pod-name", pod("pod-name", { windowsOptions: named })],
    ["pod-contents", pod("pod-contents", { windowsOptions: inlined })],
    ["container-name", pod("container-name", { containers: [container("app", named)] })],
    ["init-contents", pod("init-contents", { initContainers: [container("init", inlined)] })],
    ["annotation-pod", pod("annotation-pod", { annotations: { [POD_NAME]: "x" } })],
    [
      "annotation-container",
      pod("annotation-container", {
        annotations: { "app.container.alpha.windows.kubernetes.io/gmsa-credential-spec": "{}" },
      }),
    ],
  ])("sends a pod created with a GMSA reference (%s) to expand and authorize", async (name, body) => {
    const from = webhook.reviews.length;
    await dryRunCreate(body);
    expect(pathsCalled(name, from)).toEqual(["/authorize", "/expand"]);
  });

  it.each([
    ["none", pod("none")],
    ["other-windows-options", pod("other-windows-options", { windowsOptions: { runAsUserName: "ContainerUser" } })],
    [
      "other-annotation",
      pod("other-annotation", { annotations: { "example.com/gmsa-credential-spec-name-not": "x" } }),
    ],
  ])("does not send a pod without a GMSA reference (%s)", async (name, body) => {
    const from = webhook.reviews.length;
    await dryRunCreate(body);
    expect(pathsCalled(name, from)).toEqual([]);
  });

  it.each([
    // Matched through oldObject.
    ["sends an UPDATE that removes the only GMSA reference", "annotated", { annotations: { [POD_NAME]: null } }, true],
    [
      "does not send an UPDATE of a pod that never had a GMSA reference",
      "plain",
      { labels: { touched: "yes" } },
      false,
    ],
  ])("%s", async (_, name, metadata, sent) => {
    const from = webhook.reviews.length;
    await kubeRequestOk(admin, `${PODS}/${name}?dryRun=All`, {
      method: "PATCH",
      contentType: "application/merge-patch+json",
      body: { metadata },
    });
    expect(pathsCalled(name, from)).toEqual(sent ? ["/authorize", "/expand"] : []);
    expect(webhook.reviews.slice(from).every((r) => r.operation === "UPDATE" && r.dryRun)).toBe(true);
  });

  it("sends an ephemeral container with a GMSA through pods/ephemeralcontainers, and not one without", async () => {
    const patch = (windowsOptions?: typeof named) => ({
      method: "PATCH",
      contentType: "application/strategic-merge-patch+json",
      body: { spec: { ephemeralContainers: [container("debug", windowsOptions)] } },
    });
    let from = webhook.reviews.length;
    await kubeRequestOk(admin, `${PODS}/plain/ephemeralcontainers?dryRun=All`, patch());
    expect(pathsCalled("plain", from)).toEqual([]);

    from = webhook.reviews.length;
    await kubeRequestOk(admin, `${PODS}/plain/ephemeralcontainers?dryRun=All`, patch(named));
    expect(pathsCalled("plain", from)).toEqual(["/authorize", "/expand"]);
    expect(webhook.reviews.slice(from).every((r) => r.subResource === "ephemeralcontainers")).toBe(true);
  });

  it("applyWebhooks fills URLs (no caBundle when none is given) and deleteWebhooks removes both", async () => {
    await applyWebhooks(cluster, { expandUrl: "https://127.0.0.1:9/", authorizeUrl: "https://127.0.0.1:9/base" });
    const [expand, authorize] = (await registeredWebhooks(cluster, "gmsa-webhooks")).map(([first]) => first);
    expect(expand!.clientConfig).toEqual({ url: "https://127.0.0.1:9/expand" });
    expect(authorize!.clientConfig.url).toBe("https://127.0.0.1:9/base/authorize");
    await deleteWebhooks(cluster);
    for (const path of webhookConfigurationPaths("gmsa-webhooks"))
      expect((await kubeRequest(admin, path)).status).toBe(404);
  });
});
