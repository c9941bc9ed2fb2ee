/**
 * The review routes (`/expand`, `/authorize`, or `/<function>/<secret>` in path mode) as one function of a request,
 * the same on every runtime (functions/surface.ts routes to it): no web Request and Response per review, where most
 * of the Node server's CPU per review used to go (test/bench/RESULTS.md, section G).
 */
import { createBodyLimit, type BodyLimit } from "../shared/http/body-limit.ts";
import { createCallerCheck, type CallerAuthDeps, type CallerGate, type CallerRequest } from "../shared/http/caller-auth.ts";
import { createDeadlines } from "../shared/http/deadline.ts";
import { unhandledError } from "../shared/http/on-error.ts";
import { HttpError, jsonReply, NOT_FOUND, type HttpReply } from "../shared/http/reply.ts";
import { isJsonContentType } from "../shared/http/request-checks.ts";
import type { FunctionName } from "../shared/config/index.ts";
import type { AppDeps } from "./app-deps.ts";
import { authorizeReview } from "./authorize/authorize.ts";
import { expandReview } from "./expand/expand.ts";
import { createReviewResponder, type ReviewHandler } from "./review-responder.ts";

const HANDLERS: Record<FunctionName, ReviewHandler> = { expand: expandReview, authorize: authorizeReview };

/** One request to a review route, as a runtime's adapter sees it. */
export interface ReviewCall extends CallerRequest {
  fn: FunctionName;
  method: string;
  /** The request path, for our log only (redacted there: in path mode it holds the secret). */
  path: string;
  /** The `?timeout=` query parameter, decoded. */
  timeout: string | undefined;
  /**
   * The whole body within `limit` (undefined when there is none); declared lengths over it are refused before
   * reading ({@link BodyLimit}).
   * @throws HttpError 413 over the limit, 400 when it cannot be read.
   */
  readBody(limit: BodyLimit): Promise<Uint8Array | undefined>;
}

/** Answers one review route request; never throws (our own failures are a logged 500). */
export interface ReviewEndpoint {
  (call: ReviewCall): Promise<HttpReply>;
  /** The caller check it runs first: /metrics uses the same one (functions/surface.ts; one JWKS cache in jwt mode). */
  checkCaller: CallerGate;
}

/**
 * The checks in their order: caller auth (401/403/503, before anything else), POST only (405), JSON content type
 * (415), the body limit (413, 400 unreadable), then the review (400 when the body is not an AdmissionReview, else
 * 200 with the admission answer), within the deadline of `?timeout=`.
 * @throws TypeError when the caller auth options, the body limit or the default timeout cannot work.
 */
export function createReviewEndpoint(deps: AppDeps): ReviewEndpoint {
  const callerDeps: CallerAuthDeps = {
    logger: deps.logger,
    now: deps.now,
    ...(deps.clientCertificates === undefined ? {} : { clientCertificates: deps.clientCertificates }),
    ...(deps.digest === undefined ? {} : { digest: deps.digest }),
  };
  const checkCaller = createCallerCheck(deps.callerAuth, callerDeps);
  const limit = createBodyLimit(deps.bodyLimitBytes);
  const startDeadline = createDeadlines({ defaultTimeoutMs: deps.defaultTimeoutMs });
  const responders = new Map(deps.functions.map((fn) => [fn, createReviewResponder(fn, HANDLERS[fn], deps)]));
  const endpoint = async (call: ReviewCall): Promise<HttpReply> => {
    const respond = responders.get(call.fn);
    if (respond === undefined) return NOT_FOUND();
    try {
      const refused = await checkCaller(call);
      if (refused !== undefined) return refused;
      // Started before the body is read: the API server's timeout runs from when it sent the request.
      const deadline = startDeadline(call.timeout);
      try {
        if (call.method !== "POST") return jsonReply(405, { error: "method not allowed; use POST" }, { allow: "POST" });
        if (!isJsonContentType(call.header("content-type"))) throw new HttpError(415, "content type must be application/json");
        return await respond(await call.readBody(limit), deadline.signal);
      } finally {
        deadline.clear();
      }
    } catch (error) {
      if (error instanceof HttpError) return error.reply();
      return unhandledError(deps.logger, call.method, call.path, error);
    }
  };
  return Object.assign(endpoint, { checkCaller });
}
