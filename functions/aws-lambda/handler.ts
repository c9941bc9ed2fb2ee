/**
 * AWS Lambda: API Gateway (HTTP API or REST API), Function URL and ALB events. Payload 2.0 events (Function URLs,
 * HTTP APIs) go straight to the HTTP surface (./v2-event.ts); the others to the Hono app through hono's own
 * adapter, loaded on first use (./hono-handler.ts). Both answer through the one surface. Deps are built once per
 * execution environment (cold start).
 */
import type { APIGatewayProxyResult, LambdaContext, LambdaEvent } from "hono/aws-lambda";
import type { Bindings } from "../../shared/config/index.ts";
import { buildNodeDeps, type NodeDepsOptions } from "../node/deps.ts";
import { createSurface } from "../surface.ts";
import { answerV2Event } from "./v2-event.ts";

/** A Lambda handler for API Gateway v1/v2, Function URL and ALB events. */
export type LambdaHandler = (event: LambdaEvent, context?: LambdaContext) => Promise<APIGatewayProxyResult>;

/**
 * Starts building the app from `env` at once (during the Lambda init phase when called at module load) and returns
 * the handler, which awaits that one build. A configuration problem is logged once to `options.error` (default
 * console.error) and every request answers 503 (functions/misconfigured.ts); any other build failure fails each
 * invocation.
 */
export function createLambdaHandler(env: Bindings, options: NodeDepsOptions & { error?: (message: string) => void } = {}): LambdaHandler {
  const ready = buildNodeDeps(env, "lambda", options).then(
    ({ deps }): LambdaHandler => {
      const surface = createSurface(deps);
      const pathMode = deps.callerAuth.mode === "path";
      let hono: Promise<LambdaHandler> | undefined;
      return async (event, context) => {
        const direct = answerV2Event(event, surface, deps.functions, pathMode);
        if (direct !== undefined) return direct;
        hono ??= import("./hono-handler.ts").then((m) => m.honoLambdaHandler(deps, surface));
        return (await hono)(event, context);
      };
    },
    async (error: unknown) => (await import("./hono-handler.ts")).misconfiguredLambdaHandler(error, options.error),
  );
  // Reported by the first invocation that awaits it, not as an unhandled rejection during init.
  ready.catch(() => undefined);
  return async (event, context) => (await ready)(event, context);
}
