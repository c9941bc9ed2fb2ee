/**
 * AWS Lambda: every API Gateway payload (REST API 1.0, HTTP API 2.0), Function URL and ALB event reaches the one
 * Hono app through hono/aws-lambda's `handle`. Deps are built once per execution environment (cold start).
 */
import { handle, type APIGatewayProxyResult, type LambdaContext, type LambdaEvent } from "hono/aws-lambda";
import type { Bindings } from "../../shared/config/index.ts";
import { createApp, misconfiguredApp } from "../app.ts";
import { buildNodeDeps, type NodeDepsOptions } from "../node/deps.ts";

/** A Lambda handler for API Gateway v1/v2, Function URL and ALB events. */
export type LambdaHandler = (event: LambdaEvent, context?: LambdaContext) => Promise<APIGatewayProxyResult>;

/**
 * Starts building the app from `env` at once (during the Lambda init phase when called at module load) and returns
 * the handler, which awaits that one build. A configuration problem is logged once to `options.error` (default
 * console.error) and every request answers 503 (misconfiguredApp in functions/app.ts); any other build failure fails each
 * invocation.
 */
export function createLambdaHandler(env: Bindings, options: NodeDepsOptions & { error?: (message: string) => void } = {}): LambdaHandler {
  const ready = buildNodeDeps(env, "lambda", options).then(
    ({ deps }) => handle(createApp(deps)),
    (error: unknown) => handle(misconfiguredApp(error, options.error)),
  );
  // Reported by the first invocation that awaits it, not as an unhandled rejection during init.
  ready.catch(() => undefined);
  return async (event, context) => (await ready)(event, context);
}
