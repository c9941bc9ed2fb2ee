/**
 * The two functions as handlers that read in four steps: parse the review, plan (shared/policy), load the facts the
 * plan names, decide (shared/policy). Loading is the only I/O.
 */
import { readReview } from "../shared/admission/request.ts";
import type { AdmissionOutcome } from "../shared/admission/response.ts";
import type { AdmissionReviewRequest } from "../shared/admission/review.ts";
import type { Config, FunctionName } from "../shared/config/index.ts";
import { awaitWithin } from "../shared/deadline.ts";
import { asAdmissionError, DeadlineExceededError } from "../shared/errors.ts";
import type { CallOptions, GmsaClient } from "../shared/kube/gmsa-client.ts";
import type { CallTally } from "../shared/observer.ts";
import { decideAuthorize, planAuthorize } from "../shared/policy/authorize.ts";
import { decideExpand, planExpand } from "../shared/policy/expand.ts";
import type { Fact, LoadedFacts, LoadPlan } from "../shared/policy/facts.ts";

/** The switches of the GMSA rules (RANDOM_HOSTNAME, REVIEW_REQUESTING_USER, ENFORCEMENT), from the configuration. */
export type ReviewSettings = Pick<Config, "randomHostname" | "requestingUser" | "enforcement">;

/** What a review handler gets besides the review: facts, randomness and the deadline. */
export interface ReviewContext {
  gmsa: GmsaClient;
  settings: ReviewSettings;
  randomBytes: (length: number) => Uint8Array;
  /** Aborts when the review's time is up. */
  signal: AbortSignal;
  /** What this review's API calls did, for its log line (absent in tests that do not look). */
  tally?: CallTally;
}

export type ReviewHandler = (review: AdmissionReviewRequest, ctx: ReviewContext) => Promise<AdmissionOutcome>;

/**
 * expand (mutating): each credspec loaded once; authorize (validating): each credspec and each subject's access
 * once, decided with ENFORCEMENT and the audit annotations.
 */
export const REVIEW_HANDLERS: Record<FunctionName, ReviewHandler> = {
  async expand({ request }, ctx) {
    const plan = planExpand(readReview(request), ctx.settings);
    return decideExpand(plan, await loadFacts(plan.load, ctx));
  },
  async authorize({ request }, ctx) {
    const plan = planAuthorize(readReview(request), ctx.settings);
    return decideAuthorize(plan, await loadFacts(plan.load, ctx));
  },
};

/**
 * Loads what a plan names through the client: each credspec once, each (subject, credspec) once, all concurrently
 * and within the review's deadline. Failures become facts, not exceptions, so the policy names every place at fault.
 */
export async function loadFacts(plan: LoadPlan, ctx: Pick<ReviewContext, "gmsa" | "signal" | "tally" | "randomBytes">): Promise<LoadedFacts> {
  const call: CallOptions = { signal: ctx.signal, tally: ctx.tally };
  const credspecs = loadEach(plan.credspecs, ctx.signal, (name) => ctx.gmsa.getCredSpecContents(name, call));
  const access = plan.access.map(({ subject, names }) =>
    loadEach(names, ctx.signal, (credSpecName) =>
      "user" in subject ? ctx.gmsa.canUserUseCredSpec({ ...subject, credSpecName }, call) : ctx.gmsa.canUseCredSpec({ ...subject, credSpecName }, call),
    ),
  );
  return {
    credspecs: await credspecs,
    access: await Promise.all(access),
    randomBytes: plan.randomBytes > 0 ? ctx.randomBytes(plan.randomBytes) : new Uint8Array(0),
  };
}

/** The fact of each name, loaded concurrently. */
async function loadEach<T>(names: Iterable<string>, signal: AbortSignal, load: (name: string) => Promise<T>): Promise<Map<string, Fact<T>>> {
  const loaded = await Promise.all(
    [...names].map(async (name): Promise<[string, Fact<T>]> => {
      try {
        return [name, { ok: true, value: await untilDeadline(load(name), signal) }];
      } catch (error) {
        return [name, { ok: false, error: asAdmissionError(error) }];
      }
    }),
  );
  return new Map(loaded);
}

/**
 * Settles no later than the deadline (plus one turn of the event loop), even if the client ignores the signal,
 * so the API server always gets our answer before it gives up on us. A client that honours the signal rejects
 * within that turn, with an error that names the call and what it waited for; the generic error is for one that does not.
 */
export function untilDeadline<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return awaitWithin(work, signal, () => new DeadlineExceededError("the review's deadline passed before the API server answered"), { graceTurn: true });
}
