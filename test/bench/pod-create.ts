/**
 * Section F: what the webhooks add to pod creation through the API server: server-side dry-run creates
 * of infra/samples/pod.yaml (nothing is stored) with the admin token over keep-alive, one at a time.
 * The floor is the same through a webhook pair that does nothing (minimal-webhook.ts).
 */
import { deleteWebhooks, loadManifest } from "../../infra/local/apply.ts";
import { adminEndpoint, type LocalClusterInfo } from "../../infra/local/cluster.ts";
import { kubeRequestOk } from "../../infra/local/kube-request.ts";
import { applyFunctionsWebhooks } from "../../infra/local/stack.ts";
import { runLoad, type LoadResult } from "./load.ts";
import { startMinimalWebhook } from "./minimal-webhook.ts";

export interface PodCreateOptions {
  requests: number;
  maxDurationMs: number;
  /** With webhooks, every answer must carry the inlined credspec (expand ran). */
  expectExpanded: boolean;
}

export async function measurePodCreate(cluster: LocalClusterInfo, options: PodCreateOptions): Promise<LoadResult> {
  const [pod] = await loadManifest("samples/pod.yaml");
  if (pod === undefined) throw new Error("infra/samples/pod.yaml holds no pod");
  const namespace = pod.metadata.namespace ?? "default";
  return runLoad({
    url: `${cluster.server}/api/v1/namespaces/${namespace}/pods?dryRun=All`,
    body: JSON.stringify(pod),
    headers: { authorization: `Bearer ${cluster.adminToken}`, accept: "application/json" },
    caPem: cluster.caPem,
    concurrency: 1,
    maxRequests: options.requests,
    maxDurationMs: options.maxDurationMs,
    warmupRequests: 20,
    accept: (status, body) => status === 201 && body.includes('"gmsaCredentialSpec"') === options.expectExpanded,
  });
}

/** Pod creates without webhooks, then through the minimal webhook pair of minimal-webhook.ts. */
export async function measurePodCreateFloor(cluster: LocalClusterInfo, options: Omit<PodCreateOptions, "expectExpanded">): Promise<{ without: LoadResult; with: LoadResult }> {
  const admin = adminEndpoint(cluster);
  const { credspec } = await kubeRequestOk<{ credspec: unknown }>(admin, "/apis/windows.k8s.io/v1/gmsacredentialspecs/webapp01");
  const minimal = await startMinimalWebhook(cluster, credspec);
  try {
    const without = await measurePodCreate(cluster, { ...options, expectExpanded: false });
    await applyFunctionsWebhooks(cluster, minimal);
    const withWebhooks = await measurePodCreate(cluster, { ...options, expectExpanded: true });
    return { without, with: withWebhooks };
  } finally {
    await deleteWebhooks(cluster).catch(() => undefined);
    await minimal.stop();
  }
}
