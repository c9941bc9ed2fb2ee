import { asAdmissionError, DeadlineExceededError } from "../shared/errors.ts";
import { awaitWithin } from "../shared/deadline.ts";
import type { CallOptions, GmsaClient } from "../shared/kube/gmsa-client.ts";
import type { Fact, LoadedFacts, LoadPlan, Subject } from "../shared/policy/facts.ts";
import type { ReviewContext } from "./review-context.ts";

/**
 * Loads what a plan names through the client: each credspec once, each (subject, credspec) once, all concurrently
 * and within the review's deadline. Failures become facts, not exceptions, so the policy names every place at fault.
 */
export async function loadFacts(plan: LoadPlan, ctx: Pick<ReviewContext, "gmsa" | "signal" | "tally" | "randomBytes">): Promise<LoadedFacts> {
  const call: CallOptions = { signal: ctx.signal, tally: ctx.tally };
  const credspecs = loadEach(plan.credspecs, ctx.signal, (name) => ctx.gmsa.getCredSpecContents(name, call));
  const access = plan.access.map(({ subject, names }) => loadEach(names, ctx.signal, (name) => reviewAccess(ctx.gmsa, subject, name, call)));
  return {
    credspecs: await credspecs,
    access: await Promise.all(access),
    randomBytes: plan.randomBytes > 0 ? ctx.randomBytes(plan.randomBytes) : new Uint8Array(0),
  };
}

function reviewAccess(client: GmsaClient, subject: Subject, credSpecName: string, call: CallOptions) {
  return "user" in subject ? client.canUserUseCredSpec({ ...subject, credSpecName }, call) : client.canUseCredSpec({ ...subject, credSpecName }, call);
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
 * so the API server always gets our answer before it gives up on us.
 */
export function untilDeadline<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  // A client that honours the signal rejects within that turn, with an error that names the call and what it
  // waited for (the API server, a hung exec plugin); the generic error is only for one that does not.
  return awaitWithin(work, signal, deadlineError, { graceTurn: true });
}

function deadlineError(): DeadlineExceededError {
  return new DeadlineExceededError("the review's deadline passed before the API server answered");
}
