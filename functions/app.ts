import { Hono, type Context } from "hono";
import type { AppEnv } from "../shared/http/env.ts";
import { readRequestBody } from "../shared/http/body-limit.ts";
import type { HttpReply } from "../shared/http/reply.ts";
import { createErrorHandler } from "../shared/http/on-error.ts";
import type { AppDeps } from "./app-deps.ts";
import { createSurface, matchRoute, type Surface, type SurfaceCall } from "./surface.ts";

/**
 * The whole HTTP surface as a Hono app: `POST /expand`, `POST /authorize`, `GET /healthz`, `GET /readyz`,
 * `GET /version`, `GET /metrics`; 404 for anything else. /healthz, /readyz and /version are open; the rest is
 * behind caller auth. Routing and answers are functions/surface.ts, which the Node server also calls without Hono;
 * this is the adapter of Workers, Lambda and Azure Functions. Adapters build `deps` and call this once per process
 * or isolate (a remote JWKS is cached in the surface).
 * @throws TypeError when the caller auth options, body limit or default timeout cannot work (see createReviewEndpoint).
 */
export function createApp(deps: AppDeps, surface: Surface = createSurface(deps)): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const pathMode = deps.callerAuth.mode === "path";
  app.onError(createErrorHandler(deps.logger));
  app.all("*", async (c) => {
    // c.req.path has its percent-escapes decoded, as the Node server's decodePath does.
    return toResponse(await surface(matchRoute(c.req.path, deps.functions, pathMode), honoCall(c)));
  });
  return app;
}

/** A request as the surface reads it, from Hono's context. */
function honoCall(c: Context<AppEnv>): SurfaceCall {
  return {
    method: c.req.method,
    path: c.req.path,
    timeout: c.req.query("timeout"),
    header: (name) => c.req.header(name),
    // Workers, Lambda and Azure terminate TLS in front of the function (mtls is the Node server's).
    clientCertificate: () => undefined,
    readBody: (limit) => readRequestBody(c.req.raw, limit),
  };
}

function toResponse(reply: HttpReply): Response {
  return new Response(reply.body, { status: reply.status, headers: reply.headers });
}
