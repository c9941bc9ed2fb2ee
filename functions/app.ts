import { Hono, type Context } from "hono";
import type { AppEnv } from "../shared/http/env.ts";
import { callerAuth, PATH_SECRET_PARAM, type CallerAuthOptions, type ClientCertificate } from "../shared/http/caller-auth.ts";
import { deadline } from "../shared/http/deadline.ts";
import type { Sha256 } from "../shared/http/timing-safe-equal.ts";
import { createErrorHandler } from "../shared/http/on-error.ts";
import { authorizeReview } from "./authorize/authorize.ts";
import { expandReview } from "./expand/expand.ts";
import type { Config, FunctionName } from "../shared/config/index.ts";
import { createReviewCounters, type MetricsExposition, type ReviewCounters, type ReviewRecorder } from "./metrics.ts";
import { createReviewRoute, type ReviewHandler, type ReviewRouteDeps } from "./review-route.ts";
import { VERSION } from "./version.ts";

const HANDLERS: Record<FunctionName, ReviewHandler> = { expand: expandReview, authorize: authorizeReview };

export interface AppDeps extends ReviewRouteDeps {
  /** The functions this deployment serves: both on the Node server, one per Worker. */
  functions: readonly FunctionName[];
  version: string;
  /**
   * Caller authentication (DESIGN.md section 8, the README's Security section), checked before the body is read.
   * In `path` mode the functions and /metrics answer at `/<name>/<secret>` only.
   */
  callerAuth: CallerAuthOptions;
  /** The connection's client certificate, for `mtls`: the Node server passes functions/node/client-certificate.ts. */
  readClientCertificate?: (c: Context) => ClientCertificate | undefined;
  /** SHA-256 for caller-auth secrets (default WebCrypto): the Node adapters pass node:crypto's, which is synchronous. */
  digest?: Sha256;
  /** Used when the API server sends no `?timeout=`. */
  defaultTimeoutMs: number;
  /** Extra counters for the JSON /metrics (exec plugin runs, caches), merged with the review counters. */
  extraMetrics?: () => Record<string, number>;
  /**
   * What GET /metrics answers: the Node server passes its Prometheus registry's text. Absent: the JSON snapshot of
   * `counters` (when they keep one) and `extraMetrics`.
   */
  exposition?: () => Promise<MetricsExposition>;
  /** False once the process is shutting down: /readyz answers 503 so the endpoint is taken out of the Service. */
  ready?: () => boolean;
}

/**
 * The whole HTTP surface: `POST /expand`, `POST /authorize`, `GET /healthz`, `GET /readyz`, `GET /version`,
 * `GET /metrics`; 404 for anything else. /healthz, /readyz and /version are open; the rest is behind caller auth. Adapters build `deps`
 * and call this once per process or isolate (a remote JWKS is cached in the app).
 * @throws TypeError when the caller auth options cannot work (see `callerAuth`).
 */
export function createApp(deps: AppDeps): Hono<AppEnv> {
  const auth = callerAuth(deps.callerAuth, {
    logger: deps.logger,
    now: deps.now,
    ...(deps.readClientCertificate === undefined ? {} : { readClientCertificate: deps.readClientCertificate }),
    ...(deps.digest === undefined ? {} : { digest: deps.digest }),
  });
  const app = new Hono<AppEnv>();
  // Path mode: the secret is a route parameter, checked in constant time by `auth`; the plain path meets
  // `auth` too and gets its 401 there.
  const secretPath = deps.callerAuth.mode === "path";
  const protect = (path: string): string => {
    if (secretPath) app.use(path, auth);
    return secretPath ? `${path}/:${PATH_SECRET_PARAM}` : path;
  };
  app.onError(createErrorHandler(deps.logger));
  app.notFound((c) => c.json({ error: "not found" }, 404));
  app.get("/healthz", (c) => c.text("ok"));
  app.get("/readyz", (c) => (deps.ready?.() === false ? c.text("shutting down", 503) : c.text("ok")));
  app.get("/version", (c) => c.json({ name: "gmsa-webhooks", version: deps.version, functions: deps.functions }));
  app.get(protect("/metrics"), auth, async (c) => {
    if (deps.exposition === undefined) return c.json({ ...snapshotOf(deps.counters), ...deps.extraMetrics?.() });
    const { contentType, body } = await deps.exposition();
    return c.body(body, 200, { "content-type": contentType });
  });
  for (const fn of deps.functions) {
    const path = protect(`/${fn}`);
    app.use(path, auth, deadline({ defaultTimeoutMs: deps.defaultTimeoutMs }));
    app.route(path, createReviewRoute(fn, HANDLERS[fn], deps));
  }
  return app;
}

function snapshotOf(counters: ReviewRecorder | ReviewCounters): Record<string, number> {
  return "snapshot" in counters ? counters.snapshot() : {};
}

/**
 * What a runtime brings besides the configuration: its kube client, logger and platform specifics; `counters`
 * replaces the JSON review counters (the Node server's Prometheus registry).
 */
export type RuntimeDeps = Pick<AppDeps, "gmsa" | "logger" | "readClientCertificate" | "digest" | "extraMetrics" | "exposition" | "ready"> & {
  counters?: ReviewRecorder;
};

/** The deps of {@link createApp} from the configuration and what the runtime built: the same on every runtime. */
export function configuredDeps(config: Config, runtime: RuntimeDeps): AppDeps {
  return {
    ...runtime,
    functions: config.functions,
    version: VERSION,
    now: () => Date.now(),
    randomBytes: (length) => crypto.getRandomValues(new Uint8Array(length)),
    counters: runtime.counters ?? createReviewCounters(),
    bodyLimitBytes: config.bodyLimitBytes,
    defaultTimeoutMs: config.defaultTimeoutMs,
    settings: {
      randomHostname: config.randomHostname,
      maxCredSpecNames: config.maxCredSpecNames,
      requestingUser: config.requestingUser,
      enforcement: config.enforcement,
    },
    callerAuth: config.callerAuth,
  };
}
