import { serve, type ServerType } from "@hono/node-server";
import { readFile } from "node:fs/promises";
import { createServer as createHttpsServer, type ServerOptions } from "node:https";
import type { Hono } from "hono";
import type { AppEnv } from "../../shared/http/env.ts";

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
