/**
 * Section H (`npm run bench -- rollout`): pods created at concurrency 50 with each pair beside the floor, cold, warm,
 * then across a change; our functions at default TTLs, the Go reference at its chart's limiter and raised. Each
 * sender creates pod i for the floor and for the pair, in alternating order.
 */
import type { Pool } from "undici";
import {
  adminEndpoint,
  applyObjects,
  kubeRequestOk,
  objectPath,
  startFunctions,
  type KubeObject,
  type LocalClusterInfo,
} from "../../infra/local/index.ts";
import { DEFAULT_ACCESS_CACHE_TTL_MS, DEFAULT_CREDSPEC_CACHE_TTL_MS } from "../../shared/kube/client.ts";
import type { Pod } from "../../shared/admission/review.ts";
import { FUNCTION_NAMES } from "../../shared/config/index.ts";
import { functionUsers, openAuditLog, usersCalls, type AuditLog, type ReviewCalls } from "./audit.ts";
import { describeError, openPool, sendConcurrently } from "./load.ts";
import { NODE_SERVER_NAME, stopAfter } from "./measured-target.ts";
import type { MinimalWebhook } from "./minimal-webhook.ts";
import { benchWebhooksOf, dryRunCreate, PAIR_LABEL, withPairsRegistered, type BenchWebhooks } from "./pod-create.ts";
import { referenceWebhooks } from "./reference-phase.ts";
import { REFERENCE_SERVER_NAME, REFERENCE_USER, startReference, type ReferenceLimiter } from "./reference.ts";
import {
  EDITED_CREDSPEC,
  REVOKED_CREDSPEC,
  ROLLOUT_CONCURRENCY,
  ROLLOUT_PODS,
  rolloutCredSpecObject,
  rolloutGrant,
  rolloutObjects,
  rolloutPod,
  rolloutPodRef,
  type RolloutPodRef,
} from "./rollout-plan.ts";
import { countVerdicts, type ChangeWindow, type CreateOutcome, type VerdictCounts } from "./rollout-verdict.ts";

/** Added to each TTL before a decision must show the change: RBAC's informer, reads answered across the change. */
const GRACE_MS = 2000;
/** Past the longer TTL, the second half of the last phase goes on for this long. */
const TAIL_PAST_TTL_MS = 10_000;
const SIDES = ["floor", "measured"] as const;

type CreateRun = Record<(typeof SIDES)[number], CreateOutcome[]>;

export interface RolloutPhase extends CreateRun {
  phase: "cold" | "warm" | "change";
  durationMs: number;
  /** API-server calls the servers of the pair made. */
  calls: ReviewCalls;
  verdicts: VerdictCounts;
  /** The floor's creates not admitted: it admits every pod, so each is an error. */
  floorErrors: number;
}

export interface RolloutRun {
  server: string;
  /** The Go reference: its errors are figures (its limiter may time requests out), not a broken run. */
  reference: boolean;
  /** Its caches or its limiter, as the tables show it. */
  settings: string;
  phases: RolloutPhase[];
  durationMs: number;
}

interface RolloutOptions {
  floor: MinimalWebhook;
  /** A built windows-gmsa admission-webhook (GMSA_REF_BIN), run at each of `limiters`. */
  referenceBin?: string;
  limiters: readonly ReferenceLimiter[];
  /** Fewer pods, to check the harness (`--quick`). */
  pods?: number;
  log: (line: string) => void;
}

type PairUnderTest = Omit<RolloutRun, "phases" | "durationMs"> & {
  webhooks: BenchWebhooks;
  /** The identities its calls are logged under. */
  users: readonly string[];
  accessTtlMs: number;
  credspecTtlMs: number;
};

async function createOne(
  pool: Pool,
  cluster: LocalClusterInfo,
  pod: KubeObject,
  ref: RolloutPodRef,
): Promise<CreateOutcome> {
  const sentMs = performance.now();
  try {
    const response = await pool.request({ ...dryRunCreate(cluster, pod), body: JSON.stringify(pod) });
    const text = await response.body.text();
    const answered = { ref, sentMs, answeredMs: performance.now(), status: response.statusCode };
    let body: Partial<Pod> & { message?: string };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      body = {}; // Not JSON: kept as the message below.
    }
    if (answered.status === 201) {
      const contents = body.spec?.securityContext?.windowsOptions?.gmsaCredentialSpec;
      return {
        ...answered,
        result: "admitted",
        ...(contents === undefined ? {} : { inlined: JSON.parse(contents) as unknown }),
      };
    }
    const message = (body.message ?? text).slice(0, 300);
    // How kube-apiserver words a webhook's refusal; a timeout or an unreachable webhook is "failed calling webhook".
    const refused = answered.status >= 400 && answered.status < 500 && message.includes("denied the request");
    return { ...answered, result: refused ? "refused" : "error", message };
  } catch (error) {
    return { ref, sentMs, answeredMs: performance.now(), status: 0, result: "error", message: describeError(error) };
  }
}

/**
 * Creates pods `from` to `to` - 1 into `run`, each for the floor and for the pair measured; `spreadMs` spreads the
 * sends evenly over that long, none earlier than its turn (default: as fast as answered).
 */
async function sendCreates(cluster: LocalClusterInfo, run: CreateRun, from: number, to: number, spreadMs?: number) {
  const pool = openPool(cluster.server, cluster.caPem, ROLLOUT_CONCURRENCY);
  const started = performance.now();
  try {
    await sendConcurrently(ROLLOUT_CONCURRENCY, to - from, async (i) => {
      const index = from + i;
      if (spreadMs !== undefined) {
        const wait = started + (i * spreadMs) / (to - from) - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      }
      const ref = rolloutPodRef(index);
      const sides = SIDES.map((side) => [side, rolloutPod(ref, index, { [PAIR_LABEL]: `rollout-${side}` })] as const);
      for (const [side, pod] of index % 2 === 0 ? sides : sides.reverse())
        run[side].push(await createOne(pool, cluster, pod, ref));
    });
  } finally {
    await pool.close();
  }
}

/** Registers the floor and the pair, runs the three phases, unregisters both and undoes the change. */
async function runPhases(
  cluster: LocalClusterInfo,
  audit: AuditLog,
  pair: PairUnderTest,
  options: RolloutOptions,
): Promise<RolloutRun> {
  const pods = options.pods ?? ROLLOUT_PODS;
  const admin = adminEndpoint(cluster);
  const registered = [
    ["rollout-floor", await benchWebhooksOf(cluster, options.floor)],
    ["rollout-measured", pair.webhooks],
  ] as const;
  const started = performance.now();
  try {
    return await withPairsRegistered(cluster, registered, async () => {
      const phases: RolloutPhase[] = [];
      for (const phase of ["cold", "warm", "change"] as const) {
        const offset = await audit.mark();
        const phaseStarted = performance.now();
        const half = phase === "change" ? Math.floor(pods / 2) : pods;
        const run: CreateRun = { floor: [], measured: [] };
        await sendCreates(cluster, run, 0, half);
        let window: ChangeWindow | undefined;
        if (phase === "change") {
          const startedMs = performance.now();
          // Edits the credspec and revokes the grant.
          await applyObjects(admin, [rolloutCredSpecObject(EDITED_CREDSPEC, true)]);
          await kubeRequestOk(admin, objectPath(rolloutGrant(REVOKED_CREDSPEC)), { method: "DELETE" });
          const { accessTtlMs, credspecTtlMs } = pair;
          window = { startedMs, doneMs: performance.now(), accessTtlMs, credspecTtlMs, graceMs: GRACE_MS };
          const spreadMs = Math.max(accessTtlMs, credspecTtlMs, DEFAULT_CREDSPEC_CACHE_TTL_MS) + TAIL_PAST_TTL_MS;
          await sendCreates(cluster, run, half, pods, spreadMs);
        }
        const durationMs = performance.now() - phaseStarted;
        const calls = usersCalls(await audit.countSince(offset), pair.users);
        const verdicts = countVerdicts(run.measured, window);
        const firstError = run.measured.find((o) => o.result === "error");
        const floorFailed = run.floor.filter((o) => o.result !== "admitted");
        const floorErrors = floorFailed.length;
        phases.push({ phase, ...run, durationMs, calls, verdicts, floorErrors });
        options.log(
          `H: ${pair.server} (${pair.settings}) ${phase}: ${pods} creates in ${(durationMs / 1000).toFixed(1)} s, ` +
            `${calls.credspecReads} reads + ${calls.accessReviews} access reviews, ${verdicts.right} right, ${verdicts.stale} stale, ${verdicts.wrong} wrong, ${verdicts.error} errors` +
            `${verdicts.firstWrong === undefined ? "" : `; first wrong: ${verdicts.firstWrong}`}` +
            `${firstError === undefined ? "" : `; first error: HTTP ${firstError.status}: ${firstError.message ?? ""}`}` +
            `${floorErrors === 0 ? "" : `; the floor's creates failed ${floorErrors} times, first: HTTP ${floorFailed[0]!.status}: ${floorFailed[0]!.message ?? ""}`}`,
        );
      }
      const { server, reference, settings } = pair;
      return { server, reference, settings, phases, durationMs: performance.now() - started };
    });
  } finally {
    await applyObjects(admin, [rolloutCredSpecObject(EDITED_CREDSPEC, false), rolloutGrant(REVOKED_CREDSPEC)]);
  }
}

/** Section H: the rollout's objects, then our Node functions, then the reference at each limiter when `referenceBin` is set. */
export async function benchRollout(cluster: LocalClusterInfo, options: RolloutOptions): Promise<RolloutRun[]> {
  await applyObjects(adminEndpoint(cluster), rolloutObjects());
  const audit = openAuditLog(cluster.auditLogFile);
  const runs: RolloutRun[] = [];
  const runPair = async (server: { stop(): Promise<void> }, pair: () => Promise<PairUnderTest>) =>
    runs.push(await stopAfter(server, async () => runPhases(cluster, audit, await pair(), options)));
  const stack = await startFunctions(cluster, { runtime: "node" });
  await runPair(stack, async () => ({
    server: NODE_SERVER_NAME,
    reference: false,
    settings: `caches ${DEFAULT_CREDSPEC_CACHE_TTL_MS / 1000} s / ${DEFAULT_ACCESS_CACHE_TTL_MS / 1000} s`,
    webhooks: await benchWebhooksOf(cluster, stack),
    users: FUNCTION_NAMES.flatMap((fn) => functionUsers(fn)),
    accessTtlMs: DEFAULT_ACCESS_CACHE_TTL_MS,
    credspecTtlMs: DEFAULT_CREDSPEC_CACHE_TTL_MS,
  }));
  for (const limiter of options.referenceBin === undefined ? [] : options.limiters) {
    const reference = await startReference(cluster, options.referenceBin!, limiter);
    await runPair(reference, async () => ({
      server: REFERENCE_SERVER_NAME,
      reference: true,
      settings: `QPS ${limiter.qps}, burst ${limiter.burst}`,
      webhooks: { objects: await referenceWebhooks(cluster, reference) },
      users: [REFERENCE_USER],
      accessTtlMs: 0,
      credspecTtlMs: 0,
    }));
  }
  return runs;
}
