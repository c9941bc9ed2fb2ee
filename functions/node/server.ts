/**
 * `npm start`'s server: the app of deps.ts, served by @hono/node-server over HTTP(S) with the limits below, certificate
 * reload (tls-reload.ts), the caller's client certificate for CALLER_AUTH=mtls, and graceful shutdown.
 */
import { createAdaptorServer, type HttpBindings } from "@hono/node-server";
import type { Context, Hono } from "hono";
import type { IncomingMessage, Server, ServerOptions as HttpServerOptions, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import { TLSSocket } from "node:tls";
import type { Bindings } from "../../shared/config/index.ts";
import { findCallerAuthMode, type ClientCertificateReader } from "../../shared/caller-auth/index.ts";
import type { AppEnv } from "../../shared/http/env.ts";
import { guardConnections, type ConnectionGuardOptions } from "./connection-guard.ts";
import { buildNodeDeps } from "./deps.ts";
import { createPrometheusMetrics } from "./prometheus.ts";
import { readTlsMaterial, watchTlsFiles, type TlsMaterial } from "./tls-reload.ts";

// Limits against slow-loris clients; a stalled TLS connection costs about 90 KiB (test/e2e/stalled-connections.test.ts).
// The API server sends a whole review at once, so it never comes near them. Why these values: docs/security.md.
const LIMITS = {
  /** The request line and headers must arrive within this many ms (Node's default: 60 s). */
  headersTimeout: 5_000,
  /** The whole request, body included: the longest webhook timeout the API server allows (30 s). */
  requestTimeout: 30_000,
  /** How often Node checks the two timeouts above (its default, 30 s, would let a stalled connection live that long more). */
  connectionsCheckingInterval: 1_000,
  /** Longer than kube-apiserver keeps an idle connection (Go's 90 s): it closes first, never writing to a closing one. */
  keepAliveTimeout: 120_000,
} satisfies HttpServerOptions;
/** A TLS handshake must finish within this (Node's default: 120 s). */
const HANDSHAKE_TIMEOUT_MS = 5_000;
/**
 * Connection slots (connection-guard.ts). 512: far more connections than API servers open, few enough to keep a replica
 * in its memory when every one is stalled. 256 unproven: an attacker replacing them as fast as it can keeps the
 * replica well under its memory limit (docs/security.md). 64 per source: one address holds at most a quarter of those.
 * 10 s: the API server sends its review as soon as it connects, so it proves its connection at once.
 */
const CONNECTION_GUARD = {
  maxConnections: 512,
  maxUnproven: 256,
  perSource: 64,
  unprovenLifetimeMs: 10_000,
} satisfies ConnectionGuardOptions;
/** Longest wait for in-flight reviews when stopping: the longest webhook timeout (30 s); then the rest are closed. */
const DRAIN_LIMIT_MS = 30_000;
/** How often connections that finished their last response are closed while draining. */
const DRAIN_SWEEP_MS = 50;

/**
 * Builds the app from `env` and listens on PORT, over HTTPS when TLS_CERT_FILE/TLS_KEY_FILE are set.
 * @returns the port and server; `close`, which stops accepting, waits for in-flight requests and closes the kube client;
 *   `shutdown` (SIGTERM), which makes /readyz answer 503 at once and serves `delayMs` (default SHUTDOWN_DELAY_SECONDS)
 *   longer, so the endpoint leaves the Service first, then closes.
 * @throws ConfigurationError listing every configuration problem.
 */
export async function startNodeServer(env: Bindings, write?: (line: string) => void) {
  let ready = true;
  // Set once the server exists, which is built after the app; no request arrives before.
  const connections: { prove?: (c: Context<AppEnv>) => void } = {};
  const { config, app, deps, close } = await buildNodeDeps(env, "node", {
    ...(write && { write }),
    clientCertificate: readClientCertificate,
    prometheus: createPrometheusMetrics(),
    ready: () => ready,
    onCallerAuthenticated: (c) => connections.prove?.(c),
  });
  const { logger } = deps;
  // A stray rejection must not take the process down with every in-flight review (fail closed, keep serving).
  const onUnhandledRejection = (reason: unknown): void =>
    logger.log("error", "unhandled rejection", { error: reason instanceof Error ? reason.name : typeof reason });
  process.on("unhandledRejection", onUnhandledRejection);
  const { tlsCertFile: certFile, tlsKeyFile: keyFile, callerAuth } = config;
  const caFile = findCallerAuthMode(callerAuth).clientCaFile?.(callerAuth);
  const files = certFile && keyFile ? { certFile, keyFile, caFile } : undefined;
  const tls = files && (await readTlsMaterial(files));
  const { server, port, proveCaller } = await serveApp(app, {
    port: config.port,
    hostname: config.host,
    tls,
  });
  connections.prove = proveCaller;
  const reloader = files && tls && watchTlsFiles(server as HttpsServer, files, tls, logger);
  logger.log("info", "listening", { port, tls: files !== undefined, functions: config.functions.join(",") });
  let closing: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (closing ??= (async () => {
      reloader?.close();
      await drainServer(server);
      await close();
      // One listener per start: a process that starts and closes servers (tests) must not pile them up.
      process.off("unhandledRejection", onUnhandledRejection);
    })());
  return {
    port,
    server,
    close: stop,
    shutdown: async (delayMs = config.shutdownDelaySeconds * 1000): Promise<void> => {
      if (ready) logger.log("info", "shutting down", { delayMs });
      ready = false;
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      await stop();
    },
  };
}

/** Stops accepting and closes each keep-alive connection once idle (`Connection: close` meanwhile); after {@link DRAIN_LIMIT_MS}, all. */
async function drainServer(server: Server | HttpsServer): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.prependListener("request", (_req: IncomingMessage, res: ServerResponse) => {
    res.shouldKeepAlive = false;
  });
  // server.close() closed the idle ones; the sweep closes the others as they finish.
  const sweep = setInterval(() => server.closeIdleConnections(), DRAIN_SWEEP_MS);
  const limit = setTimeout(() => server.closeAllConnections(), DRAIN_LIMIT_MS);
  await closed;
  clearInterval(sweep);
  clearTimeout(limit);
}

/**
 * Serves `app` through @hono/node-server with the limits above, over HTTPS when `tls` is given (the API server only
 * calls webhooks over HTTPS); resolves once listening, with the bound port and `proveCaller`, the app's
 * `onCallerAuthenticated` (connection-guard.ts). With a client CA (`tls.ca`) the server asks for a certificate and
 * verifies it but keeps connections without one (`rejectUnauthorized: false`): caller auth answers those with a clean
 * 401, and /healthz stays reachable.
 */
export async function serveApp(
  app: Hono<AppEnv>,
  options: { port: number; hostname?: string | undefined; tls?: TlsMaterial | undefined },
) {
  const { tls } = options;
  const https = tls && {
    ...tls,
    ...(tls.ca && { requestCert: true, rejectUnauthorized: false }),
    handshakeTimeout: HANDSHAKE_TIMEOUT_MS,
  };
  const server = createAdaptorServer({
    fetch: app.fetch,
    ...(https && { createServer: createHttpsServer }),
    serverOptions: { ...LIMITS, ...https },
  }) as Server | HttpsServer;
  const guard = guardConnections(server, CONNECTION_GUARD);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.hostname, resolve);
  });
  const proveCaller = (c: Context<AppEnv>): void => {
    const { incoming, outgoing } = c.env as Partial<HttpBindings>;
    if (incoming && outgoing) guard.prove(incoming, outgoing);
  };
  return { server, port: (server.address() as AddressInfo).port, proveCaller, connectionCounts: guard.counts };
}

/** The client certificate of a request's TLS connection, from the adapter's `c.env.incoming`; undefined over plain HTTP. */
export const readClientCertificate: ClientCertificateReader = (c) => {
  const socket = (c.env as Partial<HttpBindings>).incoming?.socket;
  if (!(socket instanceof TLSSocket)) return undefined;
  const cert = socket.getPeerCertificate();
  const presented = typeof cert === "object" && cert !== null && Object.keys(cert).length > 0;
  const cn: unknown = presented ? (cert.subject as { CN?: unknown } | undefined)?.CN : undefined;
  // Node sets OpenSSL's code here (`UNABLE_TO_VERIFY_LEAF_SIGNATURE`), though typed as an Error: never the certificate.
  const error = socket.authorizationError as unknown;
  return {
    presented,
    authorized: socket.authorized,
    error: typeof error === "string" ? error : undefined,
    commonNames: [cn].flat().filter((name): name is string => typeof name === "string"),
  };
};
