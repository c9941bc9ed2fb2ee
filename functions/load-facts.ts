import { asAdmissionError, DeadlineExceededError } from "../shared/errors.ts";
import { awaitWithin } from "../shared/deadline.ts";
import type { AccessDecision, GmsaClient, RequestingUser } from "../shared/kube/gmsa-client.ts";
import type { CallTally } from "../shared/observer.ts";
import type { AccessFacts, CredSpecFacts, Fact } from "../shared/policy/facts.ts";

/**
 * Loads each named credspec once, all concurrently; failures become facts, not exceptions. `tally` (the review's)
 * counts the calls and cache lookups for its log line.
 */
export function loadCredSpecs(client: GmsaClient, names: Iterable<string>, signal: AbortSignal, tally?: CallTally): Promise<CredSpecFacts> {
  const call = { signal, tally };
  return loadEach(names, signal, (name) => client.getCredSpecContents(name, call));
}

/**
 * Reviews `use` of each credspec once for `subject`, all concurrently: the pod's service account, or the requesting
 * user (REVIEW_REQUESTING_USER).
 */
export function loadAccess(
  client: GmsaClient,
  subject: { namespace: string; serviceAccount: string } | { namespace: string; user: RequestingUser },
  names: Iterable<string>,
  signal: AbortSignal,
  tally?: CallTally,
): Promise<AccessFacts> {
  const call = { signal, tally };
  return loadEach<AccessDecision>(names, signal, (credSpecName) =>
    "user" in subject
      ? client.canUserUseCredSpec({ ...subject, credSpecName }, call)
      : client.canUseCredSpec({ ...subject, credSpecName }, call),
  );
}

async function loadEach<T>(names: Iterable<string>, signal: AbortSignal, load: (name: string) => Promise<T>): Promise<Map<string, Fact<T>>> {
  const entries = await Promise.all(
    [...names].map(async (name): Promise<[string, Fact<T>]> => {
      try {
        return [name, { ok: true, value: await untilDeadline(load(name), signal) }];
      } catch (error) {
        return [name, { ok: false, error: asAdmissionError(error) }];
      }
    }),
  );
  return new Map(entries);
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
