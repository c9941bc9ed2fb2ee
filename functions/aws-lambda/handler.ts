/**
 * AWS Lambda: every API Gateway payload (REST API 1.0, HTTP API 2.0), Function URL and ALB event reaches the one
 * Hono app through hono/aws-lambda's `handle`. The app is built once per execution environment (cold start).
 */
import { handle, type APIGatewayProxyResult, type LambdaContext, type LambdaEvent } from "hono/aws-lambda";
import type { Bindings } from "../../shared/config/index.ts";
import { buildServerlessApp } from "../node/deps.ts";

/** The Lambda handler over the app {@link buildServerlessApp} starts building at once. */
export function createLambdaHandler(
  env: Bindings,
  options?: Parameters<typeof buildServerlessApp>[2],
): (event: LambdaEvent, context?: LambdaContext) => Promise<APIGatewayProxyResult> {
  // hono/aws-lambda's handler is made once with the app, not per invocation.
  const ready = buildServerlessApp(env, "lambda", options).then((app) => handle(app));
  // Reported by the first invocation that awaits it, not as an unhandled rejection during init.
  ready.catch(() => undefined);
  return async (event, context) => (await ready)(event, context);
}
