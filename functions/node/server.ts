import { serve, type ServerType } from "@hono/node-server";
import { readFile } from "node:fs/promises";
import { createServer as createHttpsServer } from "node:https";
import type { Hono } from "hono";
import type { AppEnv } from "../../shared/http/env.ts";

export interface ServeOptions {
  port: number;
  /** HTTPS when both are given (the API server only calls webhooks over HTTPS). */
  tlsCertFile?: string | undefined;
  tlsKeyFile?: string | undefined;
  hostname?: string;
}

/** Serves the app over HTTP(S) with @hono/node-server; resolves once listening, with the bound port. */
export async function serveApp(app: Hono<AppEnv>, options: ServeOptions): Promise<{ server: ServerType; port: number }> {
  const tls =
    options.tlsCertFile !== undefined && options.tlsKeyFile !== undefined
      ? { cert: await readFile(options.tlsCertFile), key: await readFile(options.tlsKeyFile) }
      : undefined;
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
    server.once("error", reject);
  });
}
