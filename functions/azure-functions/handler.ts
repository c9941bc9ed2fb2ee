/**
 * Azure Functions (Node programming model v4): HttpRequest -> fetch Request -> the same Hono app as every other
 * target -> HttpResponseInit. Deps are built once per worker process.
 */
import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import type { Hono } from "hono";
import type { Bindings } from "../../shared/config/index.ts";
import type { AppEnv } from "../../shared/http/env.ts";
import { createApp } from "../app.ts";
import { misconfiguredApp } from "../misconfigured.ts";
import { buildNodeDeps, type NodeDepsOptions } from "../node/deps.ts";

/** An Azure Functions HTTP handler. */
export type AzureHttpHandler = (request: HttpRequest, context: InvocationContext) => Promise<HttpResponseInit>;

/** The fetch Request for an Azure HttpRequest; the body stays a stream so caller auth and the body limit run first. */
export function toFetchRequest(request: HttpRequest): Request {
  const hasBody = request.body !== null && request.method !== "GET" && request.method !== "HEAD";
  return new Request(request.url, {
    method: request.method,
    headers: request.headers,
    ...(hasBody ? { body: request.body, duplex: "half" } : {}),
  });
}

/** The HttpResponseInit for a fetch Response (our answers are small JSON or text, so the body is buffered). */
export async function toHttpResponseInit(response: Response): Promise<HttpResponseInit> {
  const body = response.body === null ? undefined : new Uint8Array(await response.arrayBuffer());
  return { status: response.status, headers: response.headers, ...(body === undefined ? {} : { body }) };
}

/** Translates one invocation; `app` never reads c.env, so none is passed. */
export async function serveAzureRequest(app: Hono<AppEnv>, request: HttpRequest): Promise<HttpResponseInit> {
  return toHttpResponseInit(await app.fetch(toFetchRequest(request)));
}

/**
 * Starts building the app from `env` at once and returns the handler, which awaits that one build. A configuration
 * problem is logged once to `options.error` (default console.error) and every request answers 503
 * ({@link misconfiguredApp}); any other build failure fails each invocation.
 */
export function createAzureHandler(env: Bindings, options: NodeDepsOptions & { error?: (message: string) => void } = {}): AzureHttpHandler {
  const ready = buildNodeDeps(env, "azure", options).then(({ deps }) => createApp(deps), (error: unknown) => misconfiguredApp(error, options.error));
  // Reported by the first invocation that awaits it, not as an unhandled rejection at load.
  ready.catch(() => undefined);
  return async (request) => serveAzureRequest(await ready, request);
}
