import type { Bindings } from "../../shared/config.ts";
import { assembleApp, createLogger, flattenCounters, readSettings } from "../assemble.ts";
import { createNodeGmsaClient } from "./kube/create-gmsa-client.ts";
import { readClientCertificate } from "./client-certificate.ts";
import { serveApp } from "./server.ts";

export interface RunningServer {
  port: number;
  close(): Promise<void>;
}

/**
 * Parses `env`, builds the kube client (exec plugin, keep-alive pool) and the app, and listens on PORT.
 * @throws ConfigurationError listing every configuration problem.
 */
export async function startNodeServer(env: Bindings, write: (line: string) => void = (line) => process.stdout.write(`${line}\n`)): Promise<RunningServer> {
  const { config, kube } = readSettings(env, "node");
  const logger = createLogger(config, write);
  const gmsa = await createNodeGmsaClient(kube, { logger: { warn: (message) => logger.log("warn", message) } });
  const app = assembleApp(config, { gmsa: gmsa.client, logger, kubeMetrics: () => flattenCounters(gmsa.counters()), readClientCertificate });
  // A stray rejection must not take the process down with every in-flight review (fail closed, keep serving).
  const onUnhandledRejection = (reason: unknown): void =>
    logger.log("error", "unhandled rejection", { error: reason instanceof Error ? reason.name : typeof reason });
  process.on("unhandledRejection", onUnhandledRejection);
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
      await gmsa.close();
      // One listener per start: a process that starts and closes servers (tests) must not pile them up.
      process.off("unhandledRejection", onUnhandledRejection);
    },
  };
}
