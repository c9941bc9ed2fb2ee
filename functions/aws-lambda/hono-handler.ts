/**
 * The Lambda handler of the Hono app, for API Gateway payloads other than 2.0 (REST APIs, ALB) and for a broken
 * configuration. A chunk of its own: Function URLs and HTTP APIs never load Hono or a web Request.
 */
import { handle } from "hono/aws-lambda";
import type { AppDeps } from "../app-deps.ts";
import { createApp } from "../app.ts";
import { misconfiguredApp } from "../misconfigured.ts";
import type { Surface } from "../surface.ts";
import type { LambdaHandler } from "./handler.ts";

/** Hono's adapter around the app answering through `surface`. */
export function honoLambdaHandler(deps: AppDeps, surface: Surface): LambdaHandler {
  return handle(createApp(deps, surface));
}

/** Every request answers 503 (see misconfiguredApp); anything but a ConfigurationError is rethrown. */
export function misconfiguredLambdaHandler(error: unknown, report?: (message: string) => void): LambdaHandler {
  return handle(misconfiguredApp(error, report));
}
