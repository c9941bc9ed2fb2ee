/**
 * Section F: what the webhooks add to dry-run pod creates through the API server. Its latency drifts by a millisecond
 * over minutes, so the floor and the pair are registered together and creates alternate between a pod for neither,
 * one for the floor and one for the pair.
 */
import {
  adminEndpoint,
  applyObjects,
  kubeRequest,
  loadManifest,
  objectPath,
  renderWebhooks,
  type KubeObject,
  type LocalClusterInfo,
} from "../../infra/local/index.ts";
import { waitUntilWebhooksCalled, type WebhookTargets } from "../../infra/local/stack-webhooks.ts";
import { readCredSpec } from "./bench-cluster.ts";
import { countError, describeError, loadResult, openPool, type ErrorTally, type LoadResult } from "./load.ts";
import { startMinimalWebhook, type MinimalWebhook } from "./minimal-webhook.ts";
import { median } from "./trials.ts";

export interface PodCreatePair {
  without: LoadResult;
  with: LoadResult;
}

/** One webhook pair's rounds: in each, the floor's pair and its own, measured together (same creates without). */
export interface PodCreateRounds {
  floor: PodCreatePair[];
  webhooks: PodCreatePair[];
}

/** What a webhook pair adds to a pod create at p50, in ms. */
export function addedP50(pair: PodCreatePair): number {
  return pair.with.latencyMs.p50 - pair.without.latencyMs.p50;
}

/** Every load of the rounds, for their errors. */
export function podCreateLoads(rounds: PodCreateRounds): LoadResult[] {
  return [...rounds.floor, ...rounds.webhooks].flatMap((pair) => [pair.without, pair.with]);
}

/** The minimal webhook pair of minimal-webhook.ts, for pods naming the sample credspec. */
export async function startPodCreateFloor(cluster: LocalClusterInfo): Promise<MinimalWebhook> {
  return startMinimalWebhook(cluster, await readCredSpec(cluster, "webapp01"));
}

/** The label whose value sends a bench pod to one webhook pair. */
export const PAIR_LABEL = "bench.gmsa-webhooks/pair";

/** A webhook pair to register: its configurations (infra/deploy/webhooks/ as rendered for it), and how to see it called. */
export interface BenchWebhooks {
  objects: KubeObject[];
  /** authorize's review count, when the pair exposes one: registration waits until it grows. */
  authorizeReviews?: () => Promise<number>;
}

/** infra/deploy/webhooks/ pointing at a pair that serves both paths as ours do and counts authorize's reviews (ours, the floor). */
export async function benchWebhooksOf(cluster: LocalClusterInfo, targets: WebhookTargets): Promise<BenchWebhooks> {
  return {
    objects: await renderWebhooks({
      expandUrl: targets.expandBaseUrl,
      authorizeUrl: targets.authorizeBaseUrl,
      caBundlePem: cluster.caPem,
    }),
    authorizeReviews: async () => (await targets.metrics("authorize"))["authorize_reviews_total"] ?? 0,
  };
}

/** Section F's settings as a phase (runtime-phase.ts, reference-phase.ts) takes them. */
export interface PodCreatePhaseOptions {
  podCreateRequests: number;
  podCreateMaxDurationMs: number;
  /** Section F's floor, running through the phase, and its rounds. */
  podCreateFloor: MinimalWebhook;
  podCreateRounds: number;
  log: (line: string) => void;
}

/**
 * Registers the phase's floor and `webhooks` together and measures rounds of alternating creates, logged as `name`.
 */
export async function measurePodCreates(
  cluster: LocalClusterInfo,
  name: string,
  webhooks: BenchWebhooks,
  options: PodCreatePhaseOptions,
): Promise<PodCreateRounds> {
  const [pod] = await loadManifest("samples/pod.yaml");
  if (pod === undefined) throw new Error("infra/deploy/samples/pod.yaml holds no pod");
  const pairs = [
    ["floor", await benchWebhooksOf(cluster, options.podCreateFloor)],
    ["measured", webhooks],
  ] as const;
  const rounds = await withPairsRegistered(cluster, pairs, async () => {
    const rounds: PodCreateRounds = { floor: [], webhooks: [] };
    for (let round = 0; round < options.podCreateRounds; round++) {
      const [without, withFloor, withWebhooks] = await alternateCreates(
        cluster,
        [labelled(pod, undefined), labelled(pod, "floor"), labelled(pod, "measured")],
        options,
      );
      rounds.floor.push({ without: without!, with: withFloor! });
      rounds.webhooks.push({ without: without!, with: withWebhooks! });
    }
    return rounds;
  });
  const medianAdded = (pairs: readonly PodCreatePair[]) => median(pairs.map(addedP50)).toFixed(2);
  options.log(
    `${name} pod creates: added p50 ${medianAdded(rounds.webhooks)} ms, the floor's ${medianAdded(rounds.floor)} ms (median of ${options.podCreateRounds} rounds)`,
  );
  return rounds;
}

function forPair(objects: readonly KubeObject[], pair: string): KubeObject[] {
  return objects.map((object) => ({
    ...object,
    metadata: { ...object.metadata, name: `${object.metadata.name}-bench-${pair}` },
    webhooks: (object["webhooks"] as Record<string, unknown>[]).map((webhook) => ({
      ...webhook,
      name: `${pair}.${webhook["name"] as string}`,
      objectSelector: { matchLabels: { [PAIR_LABEL]: pair } },
    })),
  }));
}

function labelled(pod: KubeObject, pair: string | undefined): KubeObject {
  const labels = {
    ...(pod.metadata["labels"] as Record<string, string> | undefined),
    ...(pair === undefined ? {} : { [PAIR_LABEL]: pair }),
  };
  return { ...pod, metadata: { ...pod.metadata, labels } };
}

/**
 * Registers each pair's configurations ({@link forPair} its name) and waits until the API server calls them for pods
 * labelled with it; runs `body`, then deletes them.
 */
export async function withPairsRegistered<T>(
  cluster: LocalClusterInfo,
  pairs: readonly (readonly [name: string, webhooks: BenchWebhooks])[],
  body: () => Promise<T>,
): Promise<T> {
  const admin = adminEndpoint(cluster);
  const objects = pairs.map(([name, webhooks]) => forPair(webhooks.objects, name));
  try {
    for (const [i, [name, { authorizeReviews }]] of pairs.entries()) {
      await applyObjects(admin, objects[i]!);
      await waitUntilWebhooksCalled(cluster, {
        labels: { [PAIR_LABEL]: name },
        ...(authorizeReviews === undefined ? {} : { authorizeReviews }),
      });
    }
    return await body();
  } finally {
    for (const object of objects.flat()) await kubeRequest(admin, objectPath(object), { method: "DELETE" });
  }
}

/** A dry-run create of `pod` as the admin, but its body (sections F and H send it as JSON text). */
export function dryRunCreate(cluster: LocalClusterInfo, pod: KubeObject) {
  const headers = { authorization: `Bearer ${cluster.adminToken}`, accept: "application/json" };
  const path = `/api/v1/namespaces/${pod.metadata.namespace ?? "default"}/pods?dryRun=All`;
  return { path, method: "POST" as const, headers: { ...headers, "content-type": "application/json" } };
}

/**
 * Creates each pod in turn, `podCreateRequests` times each (after 20 untimed turns), over one keep-alive connection;
 * each turn starts with the next pod, so that none always follows the same one. The first pod must come back as it
 * was sent, the others with the credspec inlined.
 */
async function alternateCreates(
  cluster: LocalClusterInfo,
  pods: KubeObject[],
  options: PodCreatePhaseOptions,
): Promise<LoadResult[]> {
  const pool = openPool(cluster.server, cluster.caPem, 1);
  const request = dryRunCreate(cluster, pods[0]!);
  const bodies = pods.map((pod) => JSON.stringify(pod));
  const samples = pods.map(() => new Float64Array(options.podCreateRequests));
  let tallies: ErrorTally[] = pods.map(() => ({ errors: 0 }));
  const send = async (index: number): Promise<number> => {
    const sent = performance.now();
    try {
      const response = await pool.request({ ...request, body: bodies[index]! });
      const text = await response.body.text();
      if (response.statusCode !== 201 || text.includes('"gmsaCredentialSpec"') !== index > 0)
        countError(tallies[index]!, `HTTP ${response.statusCode}: ${text.slice(0, 300)}`);
    } catch (error) {
      countError(tallies[index]!, describeError(error));
    }
    return performance.now() - sent;
  };
  try {
    const warmup = 20;
    for (let turn = 0; turn < warmup; turn++) for (let index = 0; index < pods.length; index++) await send(index);
    tallies = pods.map(() => ({ errors: 0 }));
    let turns = 0;
    const started = performance.now();
    while (turns < options.podCreateRequests && performance.now() - started < options.podCreateMaxDurationMs) {
      for (let step = 0; step < pods.length; step++) {
        const index = (turns + step) % pods.length;
        samples[index]![turns] = await send(index);
      }
      turns++;
    }
    const durationMs = performance.now() - started;
    const sent = { concurrency: 1, warmupRequests: warmup };
    return pods.map((_, index) => loadResult({ ...sent, ...tallies[index]! }, samples[index]!, turns, durationMs));
  } finally {
    await pool.close();
  }
}
