/**
 * The Node runtimes' deps (HTTPS server, AWS Lambda, Azure Functions): environment -> config -> kube client
 * (kubeconfig, exec plugin, keep-alive pool) -> the deps of createApp. Called once per process.
 */
import { createHash } from "node:crypto";
import { readConfig, type Bindings, type Config, type Runtime } from "../../shared/config/index.ts";
import { createJsonLogger } from "../../shared/log.ts";
import { configuredDeps, type AppDeps, type RuntimeDeps } from "../app.ts";
import { flattenCounters } from "../metrics.ts";
import { createNodeGmsaClient, type NodeGmsaClientOptions } from "./kube/create-gmsa-client.ts";

/** Options of {@link buildNodeDeps}. */
export interface NodeDepsOptions {
  /** Where JSON log lines go. Default: stdout, one line each. */
  write?: (line: string) => void;
  /** The connection's client certificate, for CALLER_AUTH=mtls: only the Node server, which terminates TLS itself. */
  readClientCertificate?: RuntimeDeps["readClientCertificate"];
  /** The API server transport. Default node:https (the function platforms'); the Node server passes undici's pool. */
  createTransport?: NodeGmsaClientOptions["createTransport"];
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
 * Parses `env` for `runtime` (every problem reported together), loads the kubeconfig and builds the kube client.
 * @returns the config, the deps of createApp, and `close`, which kills running exec plugins and closes the API
 *   server connections (after in-flight requests).
 * @throws ConfigurationError (or its KubeConfigurationError subclass) listing every configuration problem.
 */
export async function buildNodeDeps(
  env: Bindings,
  runtime: Exclude<Runtime, "workers">,
  options: NodeDepsOptions = {},
): Promise<{ config: Readonly<Config>; deps: AppDeps; close: () => Promise<void> }> {
  const config = readConfig(env, runtime);
  const logger = createJsonLogger({ level: config.logLevel, write: options.write ?? writeStdout });
  const gmsa = await createNodeGmsaClient(config.kube, {
    logger: { warn: (message) => logger.log("warn", message) },
    ...(options.createTransport === undefined ? {} : { createTransport: options.createTransport }),
  });
  const deps = configuredDeps(config, {
    gmsa: gmsa.client,
    logger,
    extraMetrics: () => flattenCounters(gmsa.counters()),
    digest: nodeSha256,
    ...(options.readClientCertificate === undefined ? {} : { readClientCertificate: options.readClientCertificate }),
  });
  return { config, deps, close: () => gmsa.close() };
}
