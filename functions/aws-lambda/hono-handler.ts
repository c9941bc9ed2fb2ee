/**
 * The Lambda handler of the Hono app, for every request the review endpoint does not answer itself (/healthz,
 * /version, /metrics, unknown paths, and API Gateway payloads other than 2.0), and for a broken configuration. A
 * chunk of its own: a cold start that answers a review never loads Hono or a web Request.
 */
import { handle } from "hono/aws-lambda";
import type { AppDeps } from "../app-deps.ts";
import { createApp } from "../app.ts";
import { misconfiguredApp } from "../misconfigured.ts";
import type { ReviewEndpoint } from "../review-endpoint.ts";
import type { LambdaHandler } from "./handler.ts";

/** Hono's adapter around the app whose review routes are `endpoint`. */
export function honoLambdaHandler(deps: AppDeps, endpoint: ReviewEndpoint): LambdaHandler {
  return handle(createApp(deps, endpoint));
}

/** Every request answers 503 (see misconfiguredApp); anything but a ConfigurationError is rethrown. */
export function misconfiguredLambdaHandler(error: unknown, report?: (message: string) => void): LambdaHandler {
  return handle(misconfiguredApp(error, report));
}
