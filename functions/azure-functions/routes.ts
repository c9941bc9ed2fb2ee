/**
 * The HTTP functions the Azure app registers: one per route of the Hono app. Every method is accepted so that the
 * app, not the Functions host, answers 405 and 404 exactly as on the other targets. `authLevel: "anonymous"`: callers
 * authenticate with our own CALLER_AUTH, not Functions keys (a webhook URL cannot carry `?code=`); host.json removes
 * the default `api/` route prefix.
 */
import type { HttpMethod } from "@azure/functions";

/**
 * Function name -> route template (no leading slash; with routePrefix "" the URL path is `/<route>`). The review
 * routes end in an optional catch-all, which also matches nothing: CALLER_AUTH=path serves them at `/<name>/<secret>`.
 */
export const AZURE_ROUTES = {
  expand: "expand/{*rest}",
  authorize: "authorize/{*rest}",
  metrics: "metrics",
  healthz: "healthz",
  readyz: "readyz",
  version: "version",
} as const;

/** Every method the host knows, so the app decides (405 for GET /expand, not the host's 404). */
export const AZURE_METHODS: HttpMethod[] = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];
