/**
 * The HTTP functions the Azure app registers: one per route of the Hono app. Every method is accepted so that the
 * app, not the Functions host, answers 405 and 404 exactly as on the other targets. `authLevel: "anonymous"`: callers
 * authenticate with our own CALLER_AUTH, not Functions keys; host.json removes the default `api/` route prefix.
 */
import type { HttpMethod } from "@azure/functions";

/** Function name -> route (no leading slash; with routePrefix "" the URL path is `/<route>`). */
export const AZURE_ROUTES = {
  expand: "expand",
  authorize: "authorize",
  healthz: "healthz",
  version: "version",
  metrics: "metrics",
} as const;

/** Every method the host knows, so the app decides (405 for GET /expand, not the host's 404). */
export const AZURE_METHODS: HttpMethod[] = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];
