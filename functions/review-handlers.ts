/**
 * The review routes: the Hono handler around each function (body, AdmissionReview, log line, counters) and the two
 * functions: parse the review, plan (shared/policy), load the facts the plan names (the only I/O), decide.
 */
import type { Handler } from "hono";
import { HTTPException } from "hono/http-exception";
import {
  buildAdmissionResponse,
  parseAdmissionReview,
  type AdmissionReviewRequest,
  type Decision,
  type Pod,
} from "../shared/admission/review.ts";
import { decideAuthorize, planAuthorize, planPodRead } from "../shared/policy/authorize.ts";
import { readReview, type Fact, type LoadedFacts, type LoadPlan, type ReviewFacts } from "../shared/policy/facts.ts";
import type { Config, FunctionName } from "../shared/config/index.ts";
import { awaitWithin } from "../shared/deadline.ts";
import { AdmissionError, asAdmissionError } from "../shared/errors.ts";
import type { AppEnv } from "../shared/http/env.ts";
import { parseJson } from "../shared/json.ts";
import type { GmsaClient } from "../shared/kube/client.ts";
import type { CallOptions } from "../shared/kube/request.ts";
import type { Logger } from "../shared/log.ts";
import type { CallTally } from "../shared/observer.ts";
import { decideExpand, planExpand } from "../shared/policy/expand.ts";
import type { AppMetrics } from "./metrics.ts";

/** What a review handler gets besides the review; `signal` aborts when the review's time is up, `tally` counts its calls. */
interface ReviewContext {
  gmsa: GmsaClient;
  /** The switches of the GMSA rules: RANDOM_HOSTNAME, REVIEW_REQUESTING_USER, ENFORCEMENT. */
  settings: Pick<Config, "randomHostname" | "requestingUser" | "enforcement">;
  randomBytes: (length: number) => Uint8Array;
  signal: AbortSignal;
  tally?: CallTally;
}

export type ReviewHandler = (review: AdmissionReviewRequest, ctx: ReviewContext) => Promise<Decision>;

/** expand (mutating) and authorize (validating, with ENFORCEMENT and the audit annotations). */
export const REVIEW_HANDLERS: Record<FunctionName, ReviewHandler> = {
  expand: reviewHandler(planExpand, decideExpand),
  authorize: reviewHandler(planAuthorize, decideAuthorize, planPodRead),
};

function reviewHandler<P extends { load: LoadPlan }>(
  plan: (review: ReviewFacts, settings: ReviewContext["settings"]) => P,
  decide: (plan: P, facts: LoadedFacts) => Decision,
  podToRead: typeof planPodRead = () => undefined,
): ReviewHandler {
  return async ({ request }, ctx) => {
    const review = readReview(request);
    // A CONNECT names its pod without carrying it: the pod is a fact the plan itself needs.
    const target = podToRead(review, ctx.settings);
    const withPod =
      target === undefined || review.object !== "pod" || review.operation !== "CONNECT"
        ? review
        : { ...review, pod: await loadPod(target, ctx) };
    const planned = plan(withPod, ctx.settings);
    return decide(planned, await loadFacts(planned.load, ctx));
  };
}

/** Reads the pod an exec or attach goes into, within the review's deadline; a failure is a fact (the policy refuses). */
async function loadPod(
  { namespace, name }: { namespace: string; name: string },
  ctx: Pick<ReviewContext, "gmsa" | "signal" | "tally">,
): Promise<Fact<Pod>> {
  const loaded = await loadEach([name], ctx.signal, () =>
    ctx.gmsa.getPod(namespace, name, { signal: ctx.signal, tally: ctx.tally }),
  );
  return (
    loaded.get(name) ?? { ok: false, error: new AdmissionError(`pod "${name}" was not read`, { code: "ERR_INTERNAL" }) }
  );
}

/**
 * Loads what a plan names through the client: each credspec once, each (subject, credspec) once, all concurrently
 * and within the review's deadline. Failures become facts, not exceptions, so the policy names every place at fault.
 */
export async function loadFacts(
  plan: LoadPlan,
  ctx: Pick<ReviewContext, "gmsa" | "signal" | "tally" | "randomBytes">,
): Promise<LoadedFacts> {
  const call: CallOptions = { signal: ctx.signal, tally: ctx.tally };
  const credspecs = loadEach(plan.credspecs, ctx.signal, (name) => ctx.gmsa.getCredSpecContents(name, call));
  const access = plan.access.map(({ subject, names }) =>
    loadEach(names, ctx.signal, (credSpecName) => ctx.gmsa.canUseCredSpec({ ...subject, credSpecName }, call)),
  );
  return {
    credspecs: await credspecs,
    access: await Promise.all(access),
    randomBytes: plan.randomBytes > 0 ? ctx.randomBytes(plan.randomBytes) : new Uint8Array(0),
  };
}

async function loadEach<T>(
  names: Iterable<string>,
  signal: AbortSignal,
  load: (name: string) => Promise<T>,
): Promise<Map<string, Fact<T>>> {
  const deadlinePassed = () =>
    new AdmissionError("the review's deadline passed before the API server answered", {
      code: "ERR_DEADLINE_EXCEEDED",
    });
  const loaded = await Promise.all(
    [...names].map(async (name): Promise<[string, Fact<T>]> => {
      try {
        // No later than the deadline plus one turn of the event loop, in which a client that honours the signal
        // rejects with its own, more precise error: the API server always gets our answer before it gives up on us.
        return [name, { ok: true, value: await awaitWithin(load(name), signal, deadlinePassed, { graceTurn: true }) }];
      } catch (error) {
        return [name, { ok: false, error: asAdmissionError(error) }];
      }
    }),
  );
  return new Map(loaded);
}

/** Longest name from the review (Kubernetes names are at most 253 characters) and credential detail logged as is. */
const MAX_LOGGED_NAME = 253;
const MAX_LOGGED_DETAIL = 1024;

/** `metrics`: the JSON counters, or the Node server's Prometheus registry. */
export type ReviewRouteDeps = Omit<ReviewContext, "signal"> & {
  logger: Logger;
  now: () => number;
  metrics: AppMetrics;
};

/**
 * The Hono handler of one function's review route, behind app.ts's HTTP checks: a body that is not an AdmissionReview
 * is a 400; else `handle` runs within `c.var.signal`, its errors become denials (fail closed), and the answer is a 200
 * with the AdmissionReview, logged in one line and counted.
 */
export function createReviewHandler(fn: FunctionName, handle: ReviewHandler, deps: ReviewRouteDeps): Handler<AppEnv> {
  return async (c) => {
    const started = deps.now();
    const text = await c.req.text().catch(() => {
      throw new HTTPException(400, { message: "the request body could not be read" });
    });
    const body = parseJson(text);
    if (body === undefined) throw new HTTPException(400, { message: "request body is not valid JSON" });
    const parsed = parseAdmissionReview(body);
    if (!parsed.ok) throw new HTTPException(400, { message: `not an AdmissionReview: ${parsed.problem}` });
    const { apiVersion, request } = parsed.value;

    const tally: CallTally = { kubeRequests: 0, cacheHits: 0, cacheMisses: 0 };
    let outcome: Decision;
    try {
      outcome = await handle(parsed.value, { ...deps, signal: c.var.signal, tally });
    } catch (error) {
      outcome = { allowed: false, errors: [asAdmissionError(error)] };
    }
    const reply = buildAdmissionResponse(apiVersion, request.uid, outcome);
    const code = reply.response.status?.code;
    const durationMs = deps.now() - started;
    deps.metrics.reviews.record(fn, outcome.allowed, code, request.operation, durationMs);
    deps.logger.log(outcome.allowed ? deps.metrics.allowedLevel : "warn", "review", {
      function: fn,
      uid: request.uid,
      kind: clip(request.kind.kind),
      subResource: clip(request.subResource),
      namespace: clip(request.namespace),
      name: clip(request.name),
      operation: request.operation,
      dryRun: request.dryRun,
      allowed: outcome.allowed,
      code,
      errors: outcome.allowed ? undefined : [...new Set(outcome.errors.map((e) => e.code))].join(","),
      cause: outcome.allowed ? undefined : firstInternalCause(outcome.errors),
      // The detail of a credential failure (plugin stderr, install hint, token file, issuer, account): the reply only
      // names the uid, so this line is where the operator reads it.
      credentials: outcome.allowed
        ? undefined
        : clip(outcome.errors.find((e) => e.code === "ERR_CREDENTIALS")?.message, MAX_LOGGED_DETAIL),
      durationMs,
      ...tally,
    });
    return c.json(reply);
  };
}

/** Names from the review are user input of any length: one log line stays short. */
function clip(text: string | undefined, max = MAX_LOGGED_NAME): string | undefined {
  return text === undefined || text.length <= max ? text : `${text.slice(0, max)}…`;
}

/** For our own bugs, the name (never the message: it may quote input) of the error under the ERR_INTERNAL ones. */
function firstInternalCause(errors: { code: string; cause?: unknown }[]): string | undefined {
  let cause = errors.find((e) => e.code === "ERR_INTERNAL")?.cause;
  while (cause instanceof AdmissionError && cause.code === "ERR_INTERNAL") cause = cause.cause;
  return cause instanceof Error ? cause.name : undefined;
}
