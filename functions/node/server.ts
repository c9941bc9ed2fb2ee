import { serve, type ServerType } from "@hono/node-server";
import { readFile } from "node:fs/promises";
import { createServer as createHttpsServer, type ServerOptions } from "node:https";
import type { Hono } from "hono";
import type { Bindings } from "../../shared/config/index.ts";
import type { AppEnv } from "../../shared/http/env.ts";
import { createApp } from "../app.ts";
import { readClientCertificate } from "./client-certificate.ts";
import { writeStdoutBatched } from "./batched-stdout.ts";
import { buildNodeDeps } from "./deps.ts";

export interface RunningServer {
  port: number;
  close(): Promise<void>;
}

/**
 * `npm start`'s work: env -> config -> deps ({@link buildNodeDeps}) -> createApp, then listens on PORT, over HTTPS
 * when TLS_CERT_FILE/TLS_KEY_FILE are set.
 * @throws ConfigurationError listing every configuration problem.
 */
export async function startNodeServer(env: Bindings, write: (line: string) => void = writeStdoutBatched): Promise<RunningServer> {
  // The server terminates TLS itself, so it can read the caller's client certificate (CALLER_AUTH=mtls).
  const { config, deps, close } = await buildNodeDeps(env, "node", { write, readClientCertificate });
  const app = createApp(deps);
  const { logger } = deps;
  // A stray rejection must not take the process down with every in-flight review (fail closed, keep serving).
  const onUnhandledRejection = (reason: unknown): void =>
    logger.log("error", "unhandled rejection", { error: reason instanceof Error ? reason.name : typeof reason });
  process.on("unhandledRejection", onUnhandledRejection);
  const { server, port } = await serveApp(app, {
    port: config.port,
    ...(config.host === undefined ? {} : { hostname: config.host }),
    tlsCertFile: config.tlsCertFile,
    tlsKeyFile: config.tlsKeyFile,
    clientCaFile: config.callerAuth.mode === "mtls" ? config.callerAuth.clientCaFile : undefined,
  });
  logger.log("info", "listening", { port, tls: config.tlsCertFile !== undefined, functions: config.functions.join(",") });
  return {
    port,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Idle keep-alive connections from the API server would otherwise hold close() open.
      if ("closeIdleConnections" in server) server.closeIdleConnections();
      await closed;
      await close();
      // One listener per start: a process that starts and closes servers (tests) must not pile them up.
      process.off("unhandledRejection", onUnhandledRejection);
    },
  };
}

export interface ServeOptions {
  port: number;
  /** HTTPS when both are given (the API server only calls webhooks over HTTPS). */
  tlsCertFile?: string | undefined;
  tlsKeyFile?: string | undefined;
  /**
   * CALLER_AUTH=mtls: PEM file of the CA whose client certificates are accepted. Needs HTTPS. The server asks
   * for a certificate and verifies it, but keeps connections without one (`rejectUnauthorized: false`): the
   * app's caller auth answers those with a clean 401, and /healthz stays reachable for probes.
   */
  clientCaFile?: string | undefined;
  hostname?: string;
  /** Longest time to receive a whole request, in ms (Node's `requestTimeout`); webhook timeouts are at most 30 s. */
  requestTimeoutMs?: number;
}

/** Serves the app over HTTP(S) with @hono/node-server; resolves once listening, with the bound port. */
export async function serveApp(app: Hono<AppEnv>, options: ServeOptions): Promise<{ server: ServerType; port: number }> {
  const tls = await readTlsOptions(options);
  return new Promise((resolve, reject) => {
    const server = serve(
      {
        fetch: app.fetch,
        port: options.port,
        ...(options.hostname === undefined ? {} : { hostname: options.hostname }),
        ...(tls === undefined ? {} : { createServer: createHttpsServer, serverOptions: tls }),
      },
      (info) => resolve({ server, port: info.port }),
    );
    // Slow senders cannot hold a connection past this (Node's default is 300 s).
    if ("requestTimeout" in server) server.requestTimeout = options.requestTimeoutMs ?? 60_000;
    server.once("error", reject);
  });
}

async function readTlsOptions(options: ServeOptions): Promise<ServerOptions | undefined> {
  if (options.tlsCertFile === undefined || options.tlsKeyFile === undefined) {
    if (options.clientCaFile !== undefined) throw new TypeError("client certificates (mtls) need TLS_CERT_FILE and TLS_KEY_FILE");
    return undefined;
  }
  const [cert, key, ca] = await Promise.all([
    readFile(options.tlsCertFile),
    readFile(options.tlsKeyFile),
    options.clientCaFile === undefined ? undefined : readFile(options.clientCaFile),
  ]);
  return ca === undefined ? { cert, key } : { cert, key, ca, requestCert: true, rejectUnauthorized: false };
}
