import { Hono, type Context, type MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import { findCallerAuthMode, type ClientCertificateReader } from "../shared/caller-auth/index.ts";
import { bearerTokens } from "../shared/caller-auth/refusal.ts";
import type { AppEnv } from "../shared/http/env.ts";
import { createErrorHandler } from "../shared/http/on-error.ts";
import { reviewDeadline } from "../shared/deadline.ts";
import { ConfigurationError, type Config } from "../shared/config/index.ts";
import pkg from "../package.json" with { type: "json" };
import { createReadinessCheck, type ReadinessCheck } from "../shared/kube/readiness.ts";
import type { KubeRequester } from "../shared/kube/request.ts";
import { createJsonLogger } from "../shared/log.ts";
import { createReviewHandler, REVIEW_HANDLERS, type ReviewRouteDeps } from "./review-handlers.ts";

/** Largest body accepted: an UPDATE's two objects of etcd's 1.5 MiB limit and the review around them, with room. */
export const BODY_LIMIT_BYTES = 8 * 1024 * 1024;

/**
 * What the app is built from: the configuration (FUNCTIONS: both on the Node server, one per Worker; CALLER_AUTH;
 * METRICS_TOKENS) and what each runtime brings.
 */
export interface AppDeps extends ReviewRouteDeps, Pick<Config, "functions" | "callerAuth" | "metricsTokens"> {
  /** CALLER_AUTH=mtls: reads each request's client certificate (only the Node server can). */
  clientCertificate?: ClientCertificateReader;
  /** False once the process is shutting down: /readyz answers 503 so the endpoint leaves the Service. */
  ready?: () => boolean;
  /** Whether the functions can work against the API server: /readyz answers 503 when not. */
  readiness: ReadinessCheck;
  /**
   * Called once a review request's caller authentication passed, before its body is read: the Node server keeps that
   * connection alive, and answers every other with `Connection: close` (functions/node/connection-guard.ts).
   */
  onCallerAuthenticated?: (c: Context<AppEnv>) => void;
}

/** The deps of createApp from the configuration and what the runtime built: the same on every runtime. */
export function configuredDeps(
  config: Config,
  runtime: Pick<
    AppDeps,
    "gmsa" | "logger" | "metrics" | "clientCertificate" | "ready" | "readiness" | "onCallerAuthenticated"
  >,
): AppDeps {
  return {
    ...runtime,
    functions: config.functions,
    now: () => Date.now(),
    randomBytes: (length) => crypto.getRandomValues(new Uint8Array(length)),
    settings: {
      randomHostname: config.randomHostname,
      requestingUser: config.requestingUser,
      enforcement: config.enforcement,
    },
    callerAuth: config.callerAuth,
    metricsTokens: config.metricsTokens,
  };
}

/** What a runtime supplies to {@link buildApp}: its kube client and metrics, where log lines go, the Node server's extras. */
export interface Platform extends Pick<
  AppDeps,
  "gmsa" | "metrics" | "clientCertificate" | "ready" | "onCallerAuthenticated"
> {
  /** Takes each JSON log line. */
  write: (line: string) => void;
  /** The kube client's start-up warnings, logged once. */
  warnings: readonly string[];
  /** The client's requester, which /readyz asks; `shareInFlight` on Node only (a Workers request must not await another's). */
  kube: { request: KubeRequester; shareInFlight: boolean };
}

/** The app of every runtime, from `config` and what the runtime supplies: the logger, readiness and deps, then {@link createApp}. */
export function buildApp(config: Config, platform: Platform): { app: Hono<AppEnv>; deps: AppDeps } {
  const { write, warnings, kube, ...runtime } = platform;
  const logger = createJsonLogger({ level: config.logLevel, write });
  for (const warning of warnings) logger.log("warn", warning);
  const readiness = createReadinessCheck({
    ...kube,
    functions: config.functions,
    requestingUser: config.requestingUser,
  });
  const deps = configuredDeps(config, { ...runtime, logger, readiness });
  return { app: createApp(deps), deps };
}

/**
 * The whole HTTP surface as one Hono app, the same on every runtime, built once per process or isolate:
 * - `POST /expand`, `POST /authorize` (and the caller-auth mode's `routes`: path's `/<name>/:secret`): caller auth
 *   (401/403/503), POST only (405), a JSON content type (415), the body limit (413), then the review (400 when not an
 *   AdmissionReview, else 200) within the deadline of `?timeout=`;
 * - `GET /healthz`, `GET /readyz` (503 while shutting down or while the API server refuses the function's credential
 *   or RBAC), `GET /version`: open; `GET /metrics`: open or behind METRICS_TOKENS, never the admission credential.
 * Anything else is a 404; our own failures a logged 500.
 */
export function createApp(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.onError(createErrorHandler(deps.logger));
  app.notFound((c) => c.json({ error: "not found" }, 404));

  app.get("/healthz", (c) => c.text("ok"));
  // Probes come every few seconds: log when readiness changes, not each time it is asked.
  let lastDetail: string | undefined;
  app.get("/readyz", async (c) => {
    if (deps.ready?.() === false) return c.text("shutting down", 503);
    const readiness = await deps.readiness();
    if (readiness.ready) {
      if (lastDetail !== undefined) deps.logger.log("info", "ready");
      lastDetail = undefined;
      return c.text("ok");
    }
    if (readiness.detail !== lastDetail)
      deps.logger.log("warn", "not ready", { reason: readiness.reason, detail: readiness.detail });
    lastDetail = readiness.detail;
    return c.text(`not ready: ${readiness.reason}`, 503);
  });
  app.get("/version", (c) => c.json({ name: "gmsa-webhooks", version: pkg.version, functions: deps.functions }));
  if (deps.metricsTokens.length > 0) app.get("/metrics", bearerTokens(deps.metricsTokens, deps.logger, "metrics"));
  app.get("/metrics", async (c) => {
    const { contentType, body } = await deps.metrics.exposition();
    return c.body(body, 200, { "content-type": contentType });
  });

  const { onCallerAuthenticated } = deps;
  const authenticated: MiddlewareHandler<AppEnv> = async (c, next) => {
    onCallerAuthenticated?.(c);
    await next();
  };
  const mode = findCallerAuthMode(deps.callerAuth);
  const checks = [
    mode.middleware(deps.callerAuth, deps),
    authenticated,
    postJsonOnly,
    reviewDeadline(),
    reviewBody,
  ] as const;
  for (const fn of deps.functions) {
    const handler = createReviewHandler(fn, REVIEW_HANDLERS[fn], deps);
    for (const suffix of ["", ...(mode.routes ?? [])]) app.all(`/${fn}${suffix}`, ...checks, handler);
  }
  return app;
}

const postJsonOnly: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.req.method !== "POST") return c.json({ error: "method not allowed; use POST" }, 405, { allow: "POST" });
  // JSON, parameters such as a proxy's `charset=utf-8` allowed.
  if (c.req.header("content-type")?.split(";")[0]?.trim().toLowerCase() !== "application/json")
    throw new HTTPException(415, { message: "content type must be application/json" });
  await next();
};

const limitBody = bodyLimit({
  maxSize: BODY_LIMIT_BYTES,
  onError: () => {
    throw new HTTPException(413, { message: `request body exceeds ${BODY_LIMIT_BYTES} bytes` });
  },
});

/**
 * hono/body-limit; a body without a length that breaks off while counted (the caller went away) is a 400. A declared
 * length within the limit (as the API server sends reviews) skips body-limit, whose read of `c.req.raw.body` builds a
 * web Request per request on @hono/node-server where `c.req.text()` reads the socket; one over it gets its 413. A
 * Content-Length that is not a decimal number is a 400 (RFC 9110, 8.6), whatever a runtime's parser let through:
 * neither this check nor body-limit could bound the body by it.
 */
const reviewBody: MiddlewareHandler<AppEnv> = async (c, next) => {
  const declared = c.req.header("transfer-encoding") === undefined ? c.req.header("content-length") : undefined;
  if (declared !== undefined && !/^\d+$/.test(declared))
    throw new HTTPException(400, { message: "Content-Length is not a decimal number" });
  if (declared !== undefined && Number(declared) <= BODY_LIMIT_BYTES) return next();
  try {
    await limitBody(c, next);
  } catch (error) {
    if (error instanceof HTTPException) throw error;
    throw new HTTPException(400, { message: "the request body could not be read" });
  }
};

/**
 * What Workers, Lambda and Azure serve when building their app threw: with no start-up to refuse as `npm start` does,
 * a {@link ConfigurationError} is reported once (default console.error) and every request answers 503, a failed call
 * to the API server (the webhook's failurePolicy applies). Anything else is rethrown.
 */
export function misconfiguredApp(error: unknown, report: (message: string) => void = console.error): Hono<AppEnv> {
  if (!(error instanceof ConfigurationError)) throw error;
  report(`gmsa-webhooks is misconfigured. ${error.message}`);
  const app = new Hono<AppEnv>();
  // Names no setting and no secret.
  app.all("*", (c) => c.json({ error: "gmsa-webhooks is misconfigured; see the function's logs" }, 503));
  return app;
}
