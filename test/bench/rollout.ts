/**
 * Section H (`npm run bench -- rollout`): pods created at concurrency 50 with each pair beside the floor, cold, warm,
 * then across a change; our functions at default TTLs, the Go reference at its chart's limiter and raised.
 */
import {
  adminEndpoint,
  applyObjects,
  kubeRequestOk,
  objectPath,
  startFunctions,
  type LocalClusterInfo,
} from "../../infra/local/index.ts";
import { DEFAULT_ACCESS_CACHE_TTL_MS, DEFAULT_CREDSPEC_CACHE_TTL_MS } from "../../shared/kube/client.ts";
import { FUNCTION_NAMES } from "../../shared/config/index.ts";
import { functionUsers, openAuditLog, usersCalls, type AuditLog } from "./audit.ts";
import type { ReviewCalls } from "./api-calls.ts";
import type { MinimalWebhook } from "./minimal-webhook.ts";
import { benchWebhooksOf, PAIR_LABEL, withPairsRegistered, type BenchWebhooks } from "./pod-create.ts";
import { referenceWebhooks } from "./reference-phase.ts";
import { REFERENCE_SERVER_NAME, REFERENCE_USER, startReference, type ReferenceLimiter } from "./reference.ts";
import { sendCreates, type CreateRun, type PairLabels } from "./rollout-creates.ts";
import {
  EDITED_CREDSPEC,
  REVOKED_CREDSPEC,
  ROLLOUT_PODS,
  rolloutCredSpecObject,
  rolloutGrant,
  rolloutObjects,
} from "./rollout-plan.ts";
import { countVerdicts, type ChangeWindow, type CreateOutcome, type VerdictCounts } from "./rollout-verdict.ts";

export const ROLLOUT_CONCURRENCY = 50;
/** Added to each TTL before a decision must show the change: RBAC's informer, reads answered across the change. */
const GRACE_MS = 2000;
/** Past the longer TTL, the second half of the last phase goes on for this long. */
const TAIL_PAST_TTL_MS = 10_000;

export type RolloutPhaseName = "cold" | "warm" | "change";

export interface RolloutPhase {
  phase: RolloutPhaseName;
  measured: CreateOutcome[];
  floor: CreateOutcome[];
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

export interface RolloutOptions {
  floor: MinimalWebhook;
  /** A built windows-gmsa admission-webhook (GMSA_REF_BIN), run at each of `limiters`. */
  referenceBin?: string;
  limiters: readonly ReferenceLimiter[];
  /** Fewer pods, to check the harness (`--quick`). */
  pods?: number;
  log: (line: string) => void;
}

/** The objects of the rollout: applied once, before any pair. */
export async function applyRolloutObjects(cluster: LocalClusterInfo): Promise<void> {
  await applyObjects(adminEndpoint(cluster), rolloutObjects());
}

function merge(a: CreateRun, b: CreateRun): CreateRun {
  return { measured: [...a.measured, ...b.measured], floor: [...a.floor, ...b.floor] };
}

interface PairUnderTest {
  server: string;
  reference: boolean;
  settings: string;
  webhooks: BenchWebhooks;
  /** The identities its calls are logged under. */
  users: readonly string[];
  accessTtlMs: number;
  credspecTtlMs: number;
}

/** Edits the credspec and revokes the grant; returns when both writes are done. */
async function makeChange(cluster: LocalClusterInfo): Promise<void> {
  const admin = adminEndpoint(cluster);
  await applyObjects(admin, [rolloutCredSpecObject(EDITED_CREDSPEC, true)]);
  await kubeRequestOk(admin, objectPath(rolloutGrant(REVOKED_CREDSPEC)), { method: "DELETE" });
}

async function undoChange(cluster: LocalClusterInfo): Promise<void> {
  await applyObjects(adminEndpoint(cluster), [
    rolloutCredSpecObject(EDITED_CREDSPEC, false),
    rolloutGrant(REVOKED_CREDSPEC),
  ]);
}

/** Registers the floor and the pair, runs the three phases, unregisters both and undoes the change. */
async function runPhases(
  cluster: LocalClusterInfo,
  audit: AuditLog,
  floor: MinimalWebhook,
  pair: PairUnderTest,
  options: RolloutOptions,
): Promise<RolloutRun> {
  const pods = options.pods ?? ROLLOUT_PODS;
  const labels: PairLabels = {
    floor: { [PAIR_LABEL]: "rollout-floor" },
    measured: { [PAIR_LABEL]: "rollout-measured" },
  };
  const registered = [
    ["rollout-floor", await benchWebhooksOf(cluster, floor)],
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
        let run = await sendCreates(cluster, labels, { from: 0, to: half, concurrency: ROLLOUT_CONCURRENCY });
        let window: ChangeWindow | undefined;
        if (phase === "change") {
          const startedMs = performance.now();
          await makeChange(cluster);
          const { accessTtlMs, credspecTtlMs } = pair;
          window = { startedMs, doneMs: performance.now(), accessTtlMs, credspecTtlMs, graceMs: GRACE_MS };
          const spreadMs = Math.max(accessTtlMs, credspecTtlMs, DEFAULT_CREDSPEC_CACHE_TTL_MS) + TAIL_PAST_TTL_MS;
          const rest = { from: half, to: pods, concurrency: ROLLOUT_CONCURRENCY, spreadMs };
          run = merge(run, await sendCreates(cluster, labels, rest));
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
      return {
        server: pair.server,
        reference: pair.reference,
        settings: pair.settings,
        phases,
        durationMs: performance.now() - started,
      };
    });
  } finally {
    await undoChange(cluster);
  }
}

/** Section H: our Node functions, then the reference at each limiter when `referenceBin` is set. */
export async function benchRollout(cluster: LocalClusterInfo, options: RolloutOptions): Promise<RolloutRun[]> {
  const audit = openAuditLog(cluster.auditLogFile);
  const runs: RolloutRun[] = [];
  const runPair = async (server: { stop(): Promise<void> }, pair: () => Promise<PairUnderTest>) => {
    try {
      runs.push(await runPhases(cluster, audit, options.floor, await pair(), options));
    } finally {
      await server.stop();
    }
  };
  const stack = await startFunctions(cluster, { runtime: "node" });
  await runPair(stack, async () => ({
    server: "gmsa-webhooks node",
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
