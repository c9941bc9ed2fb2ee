/** Azure Functions (Node programming model v4): HttpRequest -> fetch Request -> the one Hono app -> HttpResponseInit. */
import type { HttpHandler, HttpMethod } from "@azure/functions";
import type { Bindings } from "../../shared/config/index.ts";
import { buildServerlessApp } from "../node/deps.ts";

/**
 * The HTTP functions the Azure app registers, one per route of the Hono app: name -> route template (host.json removes
 * the `api/` prefix). The review routes' optional catch-all serves CALLER_AUTH=path's `/<name>/<secret>`. Anonymous:
 * callers authenticate with CALLER_AUTH, not Functions keys (a webhook URL cannot carry `?code=`).
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
 * The handler of every route, over the app {@link buildServerlessApp} starts building at once (once per worker process;
 * the app never reads c.env, so none is passed). The request body stays a stream so caller auth and the body limit run
 * first; our answers are small, so the response body is buffered.
 */
export function createAzureHandler(env: Bindings, options?: Parameters<typeof buildServerlessApp>[3]): HttpHandler {
  const ready = buildServerlessApp(env, "azure", (app) => app, options);
  return async (request) => {
    const hasBody = request.body !== null && request.method !== "GET" && request.method !== "HEAD";
    const init: RequestInit = {
      method: request.method,
      headers: request.headers,
      ...(hasBody ? { body: request.body, duplex: "half" } : {}),
    };
    const response = await (await ready).fetch(new Request(request.url, init));
    return {
      status: response.status,
      headers: response.headers,
      ...(response.body !== null && { body: new Uint8Array(await response.arrayBuffer()) }),
    };
  };
}
