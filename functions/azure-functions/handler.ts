/**
 * Azure Functions (Node programming model v4): HttpRequest -> fetch Request -> the same Hono app as every other
 * target -> HttpResponseInit. Deps are built once per worker process.
 */
import type { HttpHandler, HttpMethod, HttpRequest, HttpResponseInit } from "@azure/functions";
import type { Hono } from "hono";
import type { Bindings } from "../../shared/config/index.ts";
import type { AppEnv } from "../../shared/http/env.ts";
import { createApp, misconfiguredApp } from "../app.ts";
import { buildNodeDeps, type NodeDepsOptions } from "../node/deps.ts";

/**
 * The HTTP functions the Azure app registers, one per route of the Hono app: function name -> route template (no
 * leading slash: host.json removes the default `api/` prefix). The review routes end in an optional catch-all, which
 * also matches nothing: CALLER_AUTH=path serves them at `/<name>/<secret>`. `authLevel: "anonymous"`: callers
 * authenticate with our own CALLER_AUTH, not Functions keys (a webhook URL cannot carry `?code=`).
 */
export const AZURE_ROUTES = {
  expand: "expand/{*rest}",
  authorize: "authorize/{*rest}",
  metrics: "metrics",
  healthz: "healthz",
  readyz: "readyz",
  version: "version",
} as const;

/** Every method the host knows, so that the app, not the host, answers 405 and 404 as on the other targets. */
export const AZURE_METHODS: HttpMethod[] = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];

/**
 * Translates one invocation; `app` never reads c.env, so none is passed. The request body stays a stream so caller
 * auth and the body limit run first; our answers are small JSON or text, so the response body is buffered.
 */
async function serveAzureRequest(app: Hono<AppEnv>, request: HttpRequest): Promise<HttpResponseInit> {
  const hasBody = request.body !== null && request.method !== "GET" && request.method !== "HEAD";
  const init: RequestInit = { method: request.method, headers: request.headers, ...(hasBody ? { body: request.body, duplex: "half" } : {}) };
  const response = await app.fetch(new Request(request.url, init));
  const body = response.body === null ? undefined : new Uint8Array(await response.arrayBuffer());
  return { status: response.status, headers: response.headers, ...(body === undefined ? {} : { body }) };
}

/**
 * Starts building the app from `env` at once and returns the handler, which awaits that one build. A configuration
 * problem is logged once to `options.error` (default console.error) and every request answers 503
 * ({@link misconfiguredApp}); any other build failure fails each invocation.
 */
export function createAzureHandler(env: Bindings, options: NodeDepsOptions & { error?: (message: string) => void } = {}): HttpHandler {
  const ready = buildNodeDeps(env, "azure", options).then(({ deps }) => createApp(deps), (error: unknown) => misconfiguredApp(error, options.error));
  // Reported by the first invocation that awaits it, not as an unhandled rejection at load.
  ready.catch(() => undefined);
  return async (request) => serveAzureRequest(await ready, request);
}
