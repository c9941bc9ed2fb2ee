/** Section C: API-server calls of one review, cold then warm, counted in the audit log by the function's identity. */
import type { FunctionsRuntime, FunctionsStack } from "../../infra/local/index.ts";
import { FUNCTION_NAMES, type FunctionName } from "../../shared/config/index.ts";
import { functionCalls, type AuditLog, type ReviewCalls } from "./audit.ts";
import { CONTAINER_COUNTS, distinctCredSpecs, type ContainerCount } from "./bench-pods.ts";
import { runLoad } from "./load.ts";
import { acceptsAllowed, reviewUrl, type ReviewBodies } from "./reviews.ts";

export interface CallsPerReview {
  runtime: FunctionsRuntime;
  fn: FunctionName;
  containers: ContainerCount;
  /** Distinct credspecs the pod names: the most reads (and access reviews) a cold review may make. */
  distinct: number;
  cold: ReviewCalls;
  warm: ReviewCalls;
}

/**
 * Needs a freshly started stack (no review sent yet) for the cold figures; the two pod sizes name
 * disjoint credspecs, so each size's first review is cold.
 */
export async function measureCallsPerReview(
  stack: FunctionsStack,
  caPem: string,
  audit: AuditLog,
  bodies: ReviewBodies,
): Promise<CallsPerReview[]> {
  /** Sends exactly one review and counts the calls the function made for it. */
  const countOneReview = async (fn: FunctionName, body: string): Promise<ReviewCalls> => {
    const offset = await audit.mark();
    const result = await runLoad({
      url: reviewUrl(stack, fn),
      body,
      headers: { authorization: `Bearer ${stack.callerToken}` },
      caPem,
      accept: acceptsAllowed(fn),
      concurrency: 1,
      maxRequests: 1,
      maxDurationMs: 30_000,
      warmupRequests: 0,
    });
    if (result.errors > 0) throw new Error(`${stack.runtime} ${fn}: one review failed: ${result.firstError ?? ""}`);
    return functionCalls(await audit.countSince(offset), fn);
  };
  const rows: CallsPerReview[] = [];
  for (const containers of CONTAINER_COUNTS) {
    for (const fn of FUNCTION_NAMES) {
      const cold = await countOneReview(fn, bodies[fn][containers]);
      const warm = await countOneReview(fn, bodies[fn][containers]);
      rows.push({ runtime: stack.runtime, fn, containers, distinct: distinctCredSpecs(containers), cold, warm });
    }
  }
  return rows;
}
