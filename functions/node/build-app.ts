/**
 * The one way every Node adapter (HTTPS server, AWS Lambda, Azure Functions) builds the app:
 * environment -> settings -> kube client (kubeconfig, exec plugin, keep-alive pool) -> app. Called once per process.
 */
import { createHash } from "node:crypto";
import type { Hono } from "hono";
import type { Bindings, Config } from "../../shared/config.ts";
import type { AppEnv } from "../../shared/http/env.ts";
import type { Logger } from "../../shared/log.ts";
import { assembleApp, createLogger, flattenCounters, readSettings, type RuntimeParts } from "../assemble.ts";
import { createNodeGmsaClient, type NodeGmsaClientOptions } from "./kube/create-gmsa-client.ts";

/** What a Node adapter keeps for the life of the process. */
export interface NodeApp {
  app: Hono<AppEnv>;
  config: Readonly<Config>;
  logger: Logger;
  /** Kills running exec plugins and closes the API server connections (after in-flight requests). */
  close(): Promise<void>;
}

/** Options of {@link buildNodeApp}. */
export interface BuildNodeAppOptions {
  /** Where JSON log lines go. Default: stdout, one line each. */
  write?: (line: string) => void;
  /** The connection's client certificate, for CALLER_AUTH=mtls: only the Node server, which terminates TLS itself. */
  readClientCertificate?: RuntimeParts["readClientCertificate"];
  /** For tests: the kube client's seams (home directory, service-account folder, plugin runner, clock). */
  kube?: Omit<NodeGmsaClientOptions, "logger">;
}

/** SHA-256 with node:crypto: synchronous, so a bearer check does not wait on the thread pool as WebCrypto's does. */
export function nodeSha256(text: string): Uint8Array {
  return createHash("sha256").update(text, "utf8").digest();
}

/** Writes one log line to stdout. */
export function writeStdout(line: string): void {
  process.stdout.write(`${line}\n`);
}

/**
 * Parses `env` (every problem reported together), loads the kubeconfig and builds the kube client and the app.
 * @throws ConfigurationError (or its KubeConfigurationError subclass) listing every configuration problem.
 */
export async function buildNodeApp(env: Bindings, options: BuildNodeAppOptions = {}): Promise<NodeApp> {
  const { config, kube } = readSettings(env, "node");
  const logger = createLogger(config, options.write ?? writeStdout);
  const gmsa = await createNodeGmsaClient(kube, { ...options.kube, logger: { warn: (message) => logger.log("warn", message) } });
  const app = assembleApp(config, {
    gmsa: gmsa.client,
    logger,
    kubeMetrics: () => flattenCounters(gmsa.counters()),
    digest: nodeSha256,
    ...(options.readClientCertificate === undefined ? {} : { readClientCertificate: options.readClientCertificate }),
  });
  return { app, config, logger, close: () => gmsa.close() };
}
