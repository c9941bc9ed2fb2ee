/**
 * AWS Lambda: every API Gateway payload (REST API 1.0, HTTP API 2.0), Function URL and ALB event reaches the one
 * Hono app through hono/aws-lambda's `handle`. The app is built once per execution environment (cold start).
 */
import { handle, type LambdaContext, type LambdaEvent } from "hono/aws-lambda";
import type { Bindings } from "../../shared/config/index.ts";
import { buildServerlessApp } from "../node/deps.ts";

/** The Lambda handler over the app {@link buildServerlessApp} starts building at once. */
export function createLambdaHandler(env: Bindings, options?: Parameters<typeof buildServerlessApp>[3]) {
  const ready = buildServerlessApp(env, "lambda", handle, options);
  return async (event: LambdaEvent, context?: LambdaContext) => (await ready)(event, context);
}
