import { Hono, type Context } from "hono";
import type { AppEnv } from "../shared/http/env.ts";
import { readRequestBody } from "../shared/http/body-limit.ts";
import { callerAuthMiddleware, PATH_SECRET_PARAM } from "../shared/http/caller-auth.ts";
import type { HttpReply } from "../shared/http/reply.ts";
import { createErrorHandler } from "../shared/http/on-error.ts";
import type { FunctionName } from "../shared/config/index.ts";
import type { AppDeps } from "./app-deps.ts";
import type { ReviewCounters, ReviewRecorder } from "./metrics.ts";
import { createReviewEndpoint, NOT_FOUND, type ReviewCall, type ReviewEndpoint } from "./review-endpoint.ts";

/**
 * The whole HTTP surface: `POST /expand`, `POST /authorize`, `GET /healthz`, `GET /readyz`, `GET /version`,
 * `GET /metrics`; 404 for anything else. /healthz, /readyz and /version are open; the rest is behind caller auth. Adapters build `deps`
 * and call this once per process or isolate (a remote JWKS is cached in the app). The review routes are `endpoint`
 * ({@link createReviewEndpoint}), which adapters that answer them without Hono pass here, so both share one.
 * @throws TypeError when the caller auth options, body limit or default timeout cannot work (see createReviewEndpoint).
 */
export function createApp(deps: AppDeps, endpoint: ReviewEndpoint = createReviewEndpoint(deps)): Hono<AppEnv> {
  const auth = callerAuthMiddleware(endpoint.checkCaller, deps.readClientCertificate);
  const app = new Hono<AppEnv>();
  // Path mode: the secret is a route parameter, checked in constant time by `auth`; the plain path meets
  // `auth` too and gets its 401 there.
  const secretPath = deps.callerAuth.mode === "path";
  app.onError(createErrorHandler(deps.logger));
  app.notFound(() => toResponse(NOT_FOUND()));
  app.get("/healthz", (c) => c.text("ok"));
  app.get("/readyz", (c) => (deps.ready?.() === false ? c.text("shutting down", 503) : c.text("ok")));
  app.get("/version", (c) => c.json({ name: "gmsa-webhooks", version: deps.version, functions: deps.functions }));
  if (secretPath) app.use("/metrics", auth);
  app.get(secretPath ? `/metrics/:${PATH_SECRET_PARAM}` : "/metrics", auth, async (c) => {
    if (deps.exposition === undefined) return c.json({ ...snapshotOf(deps.counters), ...deps.extraMetrics?.() });
    const { contentType, body } = await deps.exposition();
    return c.body(body, 200, { "content-type": contentType });
  });
  for (const fn of deps.functions) {
    const review = async (c: Context<AppEnv>) => toResponse(await endpoint(honoReviewCall(c, fn, deps.readClientCertificate)));
    app.all(`/${fn}`, review);
    if (secretPath) app.all(`/${fn}/:${PATH_SECRET_PARAM}`, review);
  }
  return app;
}

/** A review route request as the endpoint reads it, from Hono's context. */
function honoReviewCall(c: Context<AppEnv>, fn: FunctionName, read: AppDeps["readClientCertificate"]): ReviewCall {
  return {
    fn,
    method: c.req.method,
    path: c.req.path,
    timeout: c.req.query("timeout"),
    header: (name) => c.req.header(name),
    pathSecret: c.req.param(PATH_SECRET_PARAM),
    clientCertificate: () => read?.(c),
    readBody: (limit) => readRequestBody(c.req.raw, limit),
  };
}

function toResponse(reply: HttpReply): Response {
  return new Response(reply.body, { status: reply.status, headers: reply.headers });
}

function snapshotOf(counters: ReviewRecorder | ReviewCounters): Record<string, number> {
  return "snapshot" in counters ? counters.snapshot() : {};
}

