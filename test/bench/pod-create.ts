/**
 * Section F: what the webhooks add to pod creation through the API server: server-side dry-run creates
 * of infra/samples/pod.yaml (nothing is stored) with the admin token over keep-alive, one at a time.
 * The floor is the same through a webhook pair that does nothing (minimal-webhook.ts). The API server's own
 * latency drifts by a millisecond over minutes, as much as what is measured: each webhook pair is measured in
 * rounds, each round the floor then the pair, each just after creates without webhooks, and compared with the
 * floor of the same rounds.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { deleteWebhooks, loadManifest } from "../../infra/local/apply.ts";
import { adminEndpoint, type LocalClusterInfo } from "../../infra/local/cluster.ts";
import { kubeRequestOk } from "../../infra/local/kube-request.ts";
import { applyFunctionsWebhooks } from "../../infra/local/stack.ts";
import { runLoad, type LoadResult } from "./load.ts";
import { startMinimalWebhook, type MinimalWebhook } from "./minimal-webhook.ts";

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

/** Pod creates without webhooks, then with a webhook pair. */
export interface PodCreatePair {
  without: LoadResult;
  with: LoadResult;
}

/** One webhook pair's rounds: in each, the floor's pair, then its own. */
export interface PodCreateRounds {
  floor: PodCreatePair[];
  webhooks: PodCreatePair[];
}

/** What a webhook pair adds to a pod create at p50, in ms. */
export function addedP50(pair: PodCreatePair): number {
  return pair.with.latencyMs.p50 - pair.without.latencyMs.p50;
}

/** {@link addedP50} averaged over rounds. */
export function meanAddedP50(pairs: readonly PodCreatePair[]): number {
  return pairs.reduce((sum, pair) => sum + addedP50(pair), 0) / pairs.length;
}

/** Every load of the rounds, for their errors. */
export function podCreateLoads(rounds: PodCreateRounds): LoadResult[] {
  return [...rounds.floor, ...rounds.webhooks].flatMap((pair) => [pair.without, pair.with]);
}

/** The minimal webhook pair of minimal-webhook.ts, for pods naming the sample credspec. */
export async function startPodCreateFloor(cluster: LocalClusterInfo): Promise<MinimalWebhook> {
  const { credspec } = await kubeRequestOk<{ credspec: unknown }>(adminEndpoint(cluster), "/apis/windows.k8s.io/v1/gmsacredentialspecs/webapp01");
  return startMinimalWebhook(cluster, credspec);
}

export interface ComparePodCreatesOptions extends Omit<PodCreateOptions, "expectExpanded"> {
  rounds: number;
}

/** `rounds` rounds of the floor's pair then the webhook pair that `register` registers (webhooks deleted after each). */
export async function comparePodCreates(cluster: LocalClusterInfo, floor: MinimalWebhook, register: () => Promise<void>, options: ComparePodCreatesOptions): Promise<PodCreateRounds> {
  const rounds: PodCreateRounds = { floor: [], webhooks: [] };
  for (let round = 0; round < options.rounds; round++) {
    rounds.floor.push(await measurePair(cluster, () => applyFunctionsWebhooks(cluster, floor), options));
    rounds.webhooks.push(await measurePair(cluster, register, options));
  }
  return rounds;
}

async function measurePair(cluster: LocalClusterInfo, register: () => Promise<void>, options: ComparePodCreatesOptions): Promise<PodCreatePair> {
  const without = await measurePodCreate(cluster, { ...options, expectExpanded: false });
  try {
    await register();
    return { without, with: await measurePodCreate(cluster, { ...options, expectExpanded: true }) };
  } finally {
    await deleteWebhooks(cluster);
    await waitUntilNoWebhook(cluster);
  }
}

/**
 * Waits until a dry-run create of the sample pod comes back without the credspec inlined: the API server's
 * webhook configurations follow a watch, so the next round's creates without webhooks must not meet the last ones.
 * @throws Error when they are still called after 30 s.
 */
async function waitUntilNoWebhook(cluster: LocalClusterInfo): Promise<void> {
  const [pod] = await loadManifest("samples/pod.yaml");
  const deadline = Date.now() + 30_000;
  for (;;) {
    const created = await kubeRequestOk<{ spec?: { securityContext?: { windowsOptions?: { gmsaCredentialSpec?: string } } } }>(adminEndpoint(cluster), `/api/v1/namespaces/${pod?.metadata.namespace ?? "default"}/pods?dryRun=All`, { method: "POST", body: pod });
    if (created.spec?.securityContext?.windowsOptions?.gmsaCredentialSpec === undefined) return;
    if (Date.now() > deadline) throw new Error("the API server still called the webhooks 30 s after they were deleted");
    await sleep(100);
  }
}
