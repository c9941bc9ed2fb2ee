import { buildAdmissionResponse, type AdmissionOutcome } from "../shared/admission/response.ts";
import { parseAdmissionReview } from "../shared/admission/review.ts";
import { asAdmissionError, InternalError } from "../shared/errors.ts";
import type { Handler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "../shared/http/env.ts";
import type { Logger } from "../shared/log.ts";
import { createCallTally } from "../shared/observer.ts";
import type { FunctionName } from "../shared/config/index.ts";
import type { ReviewRecorder } from "./metrics.ts";
import type { ReviewContext, ReviewHandler } from "./review-handlers.ts";

/** Longest name from the review logged as is (Kubernetes names are at most 253 characters). */
const MAX_LOGGED_NAME = 253;
/** Longest credential failure detail logged. */
const MAX_LOGGED_DETAIL = 1024;

export interface ReviewRouteDeps extends Omit<ReviewContext, "signal"> {
  logger: Logger;
  now: () => number;
  /** Told of every review's outcome: the JSON counters, or the Node server's Prometheus registry. */
  counters: ReviewRecorder;
}

/**
 * The Hono handler of one function's review route, behind the HTTP checks (functions/app.ts): read the body (400 when
 * it cannot be read), parse it (400 when it is not an AdmissionReview), call the handler within the review's deadline
 * (`c.var.signal`), write one log line, count, answer 200 with the AdmissionReview. Handler errors become denials
 * (fail closed); only bodies that are not a usable review get HTTP errors.
 */
export function createReviewHandler(fn: FunctionName, handle: ReviewHandler, deps: ReviewRouteDeps): Handler<AppEnv> {
  return async (c) => {
    const started = deps.now();
    let text: string;
    try {
      text = await c.req.text();
    } catch {
      throw new HTTPException(400, { message: "the request body could not be read" });
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new HTTPException(400, { message: "request body is not valid JSON" });
    }
    const parsed = parseAdmissionReview(body);
    if (!parsed.ok) throw new HTTPException(400, { message: `not an AdmissionReview: ${parsed.problem}` });
    const { apiVersion, request } = parsed.value;

    const tally = createCallTally();
    let outcome: AdmissionOutcome;
    try {
      outcome = await handle(parsed.value, { ...deps, signal: c.var.signal, tally });
    } catch (error) {
      outcome = { allowed: false, errors: [asAdmissionError(error)] };
    }
    const reply = buildAdmissionResponse(apiVersion, request.uid, outcome);
    const code = reply.response.status?.code;
    const durationMs = deps.now() - started;
    deps.counters.record(fn, outcome.allowed, code, request.operation, durationMs);
    deps.logger.log(outcome.allowed ? "info" : "warn", "review", {
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
      credentials: outcome.allowed ? undefined : firstCredentialsDetail(outcome.errors),
      durationMs,
      kubeRequests: tally.kubeRequests,
      cacheHits: tally.cacheHits,
      cacheMisses: tally.cacheMisses,
      tokenRefresh: tally.tokenRefresh,
    });
    return c.json(reply);
  };
}

/** Names from the review are user input of any length: one log line stays short. */
function clip(text: string | undefined): string | undefined {
  return text === undefined || text.length <= MAX_LOGGED_NAME ? text : `${text.slice(0, MAX_LOGGED_NAME)}…`;
}

/**
 * The detail of a credential failure (plugin stderr, install hint, token file, issuer, account): the reply only
 * names the uid, so this line is where the operator reads it. Clipped, as every field of the line.
 */
function firstCredentialsDetail(errors: { code: string; message: string }[]): string | undefined {
  const message = errors.find((e) => e.code === "ERR_CREDENTIALS")?.message;
  return message === undefined || message.length <= MAX_LOGGED_DETAIL ? message : `${message.slice(0, MAX_LOGGED_DETAIL)}…`;
}

/**
 * For our own bugs, the name of the underlying error (never its message: it may quote input), looking through
 * the InternalErrors that wrap it (asAdmissionError, then errorAtPlaces for each place).
 */
function firstInternalCause(errors: { code: string; cause?: unknown }[]): string | undefined {
  let cause = errors.find((e) => e.code === "ERR_INTERNAL")?.cause;
  while (cause instanceof InternalError) cause = cause.cause;
  return cause instanceof Error ? cause.name : undefined;
}
