import type { Bindings } from "../../shared/config.ts";
import { buildNodeApp, writeStdout } from "./build-app.ts";
import { readClientCertificate } from "./client-certificate.ts";
import { serveApp } from "./server.ts";

export interface RunningServer {
  port: number;
  close(): Promise<void>;
}

/**
 * Builds the app from `env` ({@link buildNodeApp}) and listens on PORT, over HTTPS when TLS_CERT_FILE/TLS_KEY_FILE are set.
 * @throws ConfigurationError listing every configuration problem.
 */
export async function startNodeServer(env: Bindings, write: (line: string) => void = writeStdout): Promise<RunningServer> {
  // The server terminates TLS itself, so it can read the caller's client certificate (CALLER_AUTH=mtls).
  const built = await buildNodeApp(env, { write, readClientCertificate });
  const { app, config, logger } = built;
  // A stray rejection must not take the process down with every in-flight review (fail closed, keep serving).
  process.on("unhandledRejection", (reason) => logger.log("error", "unhandled rejection", { error: reason instanceof Error ? reason.name : typeof reason }));
  const { server, port } = await serveApp(app, {
    port: config.port,
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
      await built.close();
    },
  };
}
