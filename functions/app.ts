import { Hono, type MiddlewareHandler } from "hono";
import type { AppEnv } from "../shared/http/env.ts";
import { deadline } from "../shared/http/deadline.ts";
import { createErrorHandler } from "../shared/http/on-error.ts";
import { authorizeReview } from "./authorize/authorize.ts";
import { expandReview } from "./expand/expand.ts";
import type { FunctionName } from "../shared/config.ts";
import { createReviewRoute, type ReviewHandler, type ReviewRouteDeps } from "./review-route.ts";

const HANDLERS: Record<FunctionName, ReviewHandler> = { expand: expandReview, authorize: authorizeReview };

export interface AppDeps extends ReviewRouteDeps {
  /** The functions this deployment serves: both on the Node server, one per Worker. */
  functions: readonly FunctionName[];
  version: string;
  /** Caller authentication, run before the body is read (DESIGN.md section 8). */
  callerAuth: MiddlewareHandler;
  /** Used when the API server sends no `?timeout=`. */
  defaultTimeoutMs: number;
  /** Extra counters for /metrics (exec plugin runs, caches), merged with the review counters. */
  extraMetrics?: () => Record<string, number>;
}

/**
 * The whole HTTP surface: `POST /expand`, `POST /authorize`, `GET /healthz`, `GET /version`,
 * `GET /metrics`; 404 for anything else. Adapters build `deps` once and call this.
 */
export function createApp(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.onError(createErrorHandler(deps.logger));
  app.notFound((c) => c.json({ error: "not found" }, 404));
  app.get("/healthz", (c) => c.text("ok"));
  app.get("/version", (c) => c.json({ name: "gmsa-webhooks", version: deps.version, functions: deps.functions }));
  app.get("/metrics", deps.callerAuth, (c) => c.json({ ...deps.counters.snapshot(), ...deps.extraMetrics?.() }));
  for (const fn of deps.functions) {
    app.use(`/${fn}`, deps.callerAuth, deadline({ defaultTimeoutMs: deps.defaultTimeoutMs }));
    app.route(`/${fn}`, createReviewRoute(fn, HANDLERS[fn], deps));
  }
  return app;
}
