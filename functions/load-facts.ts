import { asAdmissionError, DeadlineExceededError } from "../shared/errors.ts";
import { awaitWithin } from "../shared/deadline.ts";
import type { AccessDecision, GmsaClient, RequestingUser } from "../shared/kube/gmsa-client.ts";
import type { CallTally } from "../shared/observer.ts";
import type { AccessFacts, CredSpecFacts, Fact } from "../shared/policy/facts.ts";

/**
 * Loads each named credspec once, all concurrently; failures become facts, not exceptions. `tally` (the review's)
 * counts the calls and cache lookups for its log line.
 */
export function loadCredSpecs(client: GmsaClient, names: Iterable<string>, signal: AbortSignal, tally?: CallTally): CredSpecFacts | Promise<CredSpecFacts> {
  const call = { signal, tally };
  return loadEach(names, signal, undefined, (name) => client.getCredSpecContents(name, call));
}

/**
 * Reviews `use` of each credspec once for `subject`, all concurrently: the pod's service account, or the requesting
 * user (REVIEW_REQUESTING_USER). Held decisions come back at once, as in {@link loadCredSpecs}.
 */
export function loadAccess(
  client: GmsaClient,
  subject: { namespace: string; serviceAccount: string } | { namespace: string; user: RequestingUser },
  names: Iterable<string>,
  signal: AbortSignal,
  tally?: CallTally,
): AccessFacts | Promise<AccessFacts> {
  const call = { signal, tally };
  if ("user" in subject) return loadEach(names, signal, undefined, (credSpecName) => client.canUserUseCredSpec({ ...subject, credSpecName }, call));
  return loadEach<AccessDecision>(names, signal, undefined, (credSpecName) => client.canUseCredSpec({ ...subject, credSpecName }, call));
}

type Facts<T> = Map<string, Fact<T>>;

/** The facts of `names`: those `held` has at once, the others from `load`, concurrently and within the deadline. */
function loadEach<T>(
  names: Iterable<string>,
  signal: AbortSignal,
  held: ((name: string) => T | undefined) | undefined,
  load: (name: string) => Promise<T>,
): Facts<T> | Promise<Facts<T>> {
  const facts: Facts<T> = new Map();
  const missing: string[] = [];
  for (const name of names) {
    const value = held?.(name);
    if (value === undefined) missing.push(name);
    else facts.set(name, { ok: true, value });
  }
  if (missing.length === 0) return facts;
  return Promise.all(
    missing.map(async (name): Promise<[string, Fact<T>]> => {
      try {
        return [name, { ok: true, value: await untilDeadline(load(name), signal) }];
      } catch (error) {
        return [name, { ok: false, error: asAdmissionError(error) }];
      }
    }),
  ).then((loaded) => {
    for (const [name, fact] of loaded) facts.set(name, fact);
    return facts;
  });
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
