/** Section H's dry-run creates: each sender creates pod i for the floor and for the pair, in alternating order. */
import { Pool } from "undici";
import type { KubeObject, LocalClusterInfo } from "../../infra/local/index.ts";
import { rolloutPod, rolloutPodRef } from "./rollout-plan.ts";
import type { CreateOutcome } from "./rollout-verdict.ts";

/** Labels that send a pod to the floor's pair and to the pair measured. */
export interface PairLabels {
  floor: Record<string, string>;
  measured: Record<string, string>;
}

export interface CreateRun {
  measured: CreateOutcome[];
  floor: CreateOutcome[];
}

export interface SendCreatesOptions {
  from: number;
  to: number;
  concurrency: number;
  /** Spread the sends evenly over this long (ms), none earlier than its turn; default: as fast as answered. */
  spreadMs?: number;
}

interface ProbePod {
  spec?: { securityContext?: { windowsOptions?: { gmsaCredentialSpec?: string } } };
  message?: string;
}

async function createOne(pool: Pool, token: string, pod: KubeObject, index: number): Promise<CreateOutcome> {
  const ref = rolloutPodRef(index);
  const sentMs = performance.now();
  try {
    const response = await pool.request({
      path: `/api/v1/namespaces/${pod.metadata.namespace ?? "default"}/pods?dryRun=All`,
      method: "POST",
      headers: { authorization: `Bearer ${token}`, accept: "application/json", "content-type": "application/json" },
      body: JSON.stringify(pod),
    });
    const text = await response.body.text();
    const answeredMs = performance.now();
    const status = response.statusCode;
    let body: ProbePod = {};
    try {
      body = JSON.parse(text) as ProbePod;
    } catch {
      // Not JSON: kept as the message below.
    }
    if (status === 201) {
      const contents = body.spec?.securityContext?.windowsOptions?.gmsaCredentialSpec;
      return {
        ref,
        sentMs,
        answeredMs,
        status,
        result: "admitted",
        ...(contents === undefined ? {} : { inlined: JSON.parse(contents) as unknown }),
      };
    }
    const message = (body.message ?? text).slice(0, 300);
    // How kube-apiserver words a webhook's refusal; a timeout or an unreachable webhook is "failed calling webhook".
    const refused = status >= 400 && status < 500 && message.includes("denied the request");
    return { ref, sentMs, answeredMs, status, result: refused ? "refused" : "error", message };
  } catch (error) {
    return {
      ref,
      sentMs,
      answeredMs: performance.now(),
      status: 0,
      result: "error",
      message: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    };
  }
}

/** Creates pods `from` to `to` - 1, each for the floor and for the pair measured. */
export async function sendCreates(
  cluster: LocalClusterInfo,
  labels: PairLabels,
  options: SendCreatesOptions,
): Promise<CreateRun> {
  const pool = new Pool(cluster.server, {
    connections: options.concurrency,
    pipelining: 1,
    keepAliveTimeout: 60_000,
    connect: { ca: cluster.caPem },
  });
  const run: CreateRun = { measured: [], floor: [] };
  const count = options.to - options.from;
  const started = performance.now();
  let next = options.from;
  try {
    await Promise.all(
      Array.from({ length: options.concurrency }, async () => {
        while (next < options.to) {
          const index = next++;
          if (options.spreadMs !== undefined) {
            const due = started + ((index - options.from) * options.spreadMs) / count;
            const wait = due - performance.now();
            if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
          }
          const ref = rolloutPodRef(index);
          const sides = (["floor", "measured"] as const).map(
            (side) => [side, rolloutPod(ref, index, labels[side])] as const,
          );
          for (const [side, pod] of index % 2 === 0 ? sides : sides.reverse())
            run[side].push(await createOne(pool, cluster.adminToken, pod, index));
        }
      }),
    );
    return run;
  } finally {
    await pool.close();
  }
}
