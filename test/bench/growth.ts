/**
 * Section I (`npm run bench -- growth`): API calls and memory of fresh Node servers against the distinct credspecs
 * pods name (growth-plan.ts). Reviews go straight to each function: 20,000 pod creates a step would take minutes.
 */
import { adminEndpoint, applyObjects, objectPath, type LocalClusterInfo } from "../../infra/local/index.ts";
import { FUNCTION_NAMES, type FunctionName } from "../../shared/config/index.ts";
import { readProcessMemory } from "../e2e/support/process-memory.ts";
import { functionCalls, openAuditLog, type ReviewCalls } from "./audit.ts";
import { reviewBody } from "./bench-pods.ts";
import {
  GROWTH_NAMESPACE,
  growthCredSpec,
  growthCredSpecName,
  growthCredSpecObject,
  growthGrantObjects,
  growthPairOrder,
  growthServiceAccount,
  growthServiceAccounts,
} from "./growth-plan.ts";
import { addErrors, runLoad, type ErrorTally } from "./load.ts";
import { loadOf, startNodeTargets, stopAfter } from "./measured-target.ts";
import { mib } from "./table.ts";

/** Concurrent reviews in flight to a function, as section B's middle row. */
const GROWTH_CONCURRENCY = 16;
const SETUP_CONCURRENCY = 32;

/** One function's memory over a step, in bytes. */
export interface StepMemory {
  idleBytes: number;
  afterBytes: number;
  /** VmHWM: the most it held at any moment. */
  peakBytes: number;
}

export interface GrowthStep extends ErrorTally {
  credspecs: number;
  serviceAccounts: number;
  /** Reviews sent to each function. */
  reviews: number;
  calls: Record<FunctionName, ReviewCalls>;
  memory: Record<FunctionName, StepMemory>;
  durationMs: number;
}

export interface GrowthOptions {
  steps: readonly number[];
  reviewsPerStep: number;
  log: (line: string) => void;
}

/** Creates credspecs `from` to `to` - 1 (an existing one is fine). */
async function createCredSpecs(cluster: LocalClusterInfo, from: number, to: number): Promise<void> {
  if (to <= from) return;
  const created = await runLoad({
    url: `${cluster.server}${objectPath(growthCredSpecObject(0)).replace(/\/[^/]+$/, "")}`,
    body: (i) => JSON.stringify(growthCredSpecObject(from + i)),
    headers: { authorization: `Bearer ${cluster.adminToken}`, accept: "application/json" },
    caPem: cluster.caPem,
    concurrency: SETUP_CONCURRENCY,
    maxRequests: to - from,
    maxDurationMs: Number.POSITIVE_INFINITY,
    warmupRequests: 0,
    accept: (status) => status === 201 || status === 409,
  });
  if (created.errors > 0) throw new Error(`creating credspecs ${from} to ${to - 1}: ${created.firstError ?? ""}`);
}

/** The review of a pod naming pair `i`: expand gets the name, authorize the name and the contents expand inlines. */
function reviewOf(fn: FunctionName, i: number, uid: number): string {
  const windowsOptions = {
    gmsaCredentialSpecName: growthCredSpecName(i),
    ...(fn === "authorize" ? { gmsaCredentialSpec: JSON.stringify(growthCredSpec(i)) } : {}),
  };
  const pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: `growth-${uid}`, namespace: GROWTH_NAMESPACE },
    spec: {
      serviceAccountName: growthServiceAccount(i),
      securityContext: { windowsOptions },
      containers: [{ name: "app", image: "mcr.microsoft.com/windows/servercore:ltsc2022" }],
    },
  };
  return reviewBody(pod, `00000000-0000-4000-8000-${uid.toString().padStart(12, "0")}`);
}

/** Section I: each step on freshly started servers, the credspecs created as the steps need them. */
export async function benchGrowth(cluster: LocalClusterInfo, options: GrowthOptions): Promise<GrowthStep[]> {
  const audit = openAuditLog(cluster.auditLogFile);
  const steps: GrowthStep[] = [];
  let created = 0;
  for (const credspecs of options.steps) {
    const setupStarted = performance.now();
    await createCredSpecs(cluster, created, credspecs);
    created = Math.max(created, credspecs);
    await applyObjects(adminEndpoint(cluster), growthGrantObjects(credspecs));
    options.log(
      `I: ${credspecs} credspecs and their grant in the API server in ${((performance.now() - setupStarted) / 1000).toFixed(1)} s`,
    );
    await stopAfter(await startNodeTargets(cluster), async (node) => {
      const started = performance.now();
      const order = growthPairOrder(credspecs, options.reviewsPerStep);
      const calls = {} as Record<FunctionName, ReviewCalls>;
      const memory = {} as Record<FunctionName, StepMemory>;
      const tally: ErrorTally = { errors: 0 };
      for (const fn of FUNCTION_NAMES) {
        const target = node.targets.find((t) => t.fn === fn)!;
        const idle = await readProcessMemory(target.pid);
        const offset = await audit.mark();
        const sent = await runLoad(
          loadOf(target, (j) => reviewOf(fn, order[j]!, j), {
            concurrency: GROWTH_CONCURRENCY,
            maxRequests: order.length,
            maxDurationMs: Number.POSITIVE_INFINITY,
            warmupRequests: 0,
          }),
        );
        calls[fn] = functionCalls(await audit.countSince(offset), fn);
        const after = await readProcessMemory(target.pid);
        memory[fn] = { idleBytes: idle.rssBytes, afterBytes: after.rssBytes, peakBytes: after.peakRssBytes };
        addErrors(tally, sent, `${fn}: `);
      }
      steps.push({
        credspecs,
        serviceAccounts: growthServiceAccounts(credspecs),
        reviews: options.reviewsPerStep,
        calls,
        memory,
        ...tally,
        durationMs: performance.now() - started,
      });
      options.log(
        `I: ${credspecs} credspecs: expand ${calls.expand.credspecReads} reads, authorize ${calls.authorize.credspecReads} reads + ${calls.authorize.accessReviews} access reviews, ` +
          `RSS ${mib(memory.expand.afterBytes)} / ${mib(memory.authorize.afterBytes)} MiB, errors ${tally.errors}${tally.firstError === undefined ? "" : ` (first: ${tally.firstError})`}`,
      );
    });
  }
  return steps;
}
