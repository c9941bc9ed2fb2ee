/**
 * The configuration: every variable (variables.ts) read by one reader (reader.ts) into one frozen Config, with every
 * problem of every section (app, caller auth, Kubernetes client, runtime rules) reported together.
 */
import type { CallerAuthOptions } from "../http/caller-auth.ts";
import { LOG_LEVELS, type LogLevel } from "../log.ts";
import { readCallerAuth, readMetricsTokens } from "./caller-auth.ts";
import { readKubeSettings, type KubeSettings } from "./kube.ts";
import { Reader, type Bindings } from "./reader.ts";
import { runtimeProblems, type Runtime } from "./runtime.ts";
import { ENFORCEMENT_MODES, REQUESTING_USER_MODES, type EnforcementMode, type RequestingUserMode } from "../policy/review.ts";
import { FUNCTION_NAMES, type FunctionName } from "./variables.ts";

import { ConfigurationError } from "./configuration-error.ts";

export { CLOUD_TOKENS, readCloudTokenSettings, type CloudTokenKind } from "./cloud-token.ts";
export { ConfigurationError, KubeConfigurationError } from "./configuration-error.ts";
export { parseKubeSettings, type KubeSettings } from "./kube.ts";
export type { Bindings } from "./reader.ts";
export type { Runtime } from "./runtime.ts";
export { FUNCTION_NAMES, VARIABLES, withoutPluginSecrets, type FunctionName, type VariableName } from "./variables.ts";

/** Everything the functions read from their environment, parsed once at start-up. */
export interface Config {
  runtime: Runtime;
  functions: FunctionName[];
  port: number;
  /** Node server: address to listen on; undefined means every interface. */
  host: string | undefined;
  tlsCertFile: string | undefined;
  tlsKeyFile: string | undefined;
  /** Node server: after SIGTERM, keep serving this long with /readyz at 503 before closing (SHUTDOWN_DELAY_SECONDS). */
  shutdownDelaySeconds: number;
  callerAuth: CallerAuthOptions;
  /** Bearer tokens GET /metrics requires (METRICS_TOKENS); empty: /metrics is open. */
  metricsTokens: string[];
  randomHostname: boolean;
  logLevel: LogLevel;
  requestingUser: RequestingUserMode;
  enforcement: EnforcementMode;
  kube: Readonly<KubeSettings>;
}

export type ConfigResult = { ok: true; config: Readonly<Config> } | { ok: false; problems: string[] };

/** Options of {@link parseConfig}. */
export interface ParseConfigOptions {
  /** Where the functions run; some settings exist on one runtime only (runtime.ts). Default "node". */
  runtime?: Runtime;
}

/**
 * Parses the environment into a frozen Config, reporting every problem together (never only the first).
 * Variable names, defaults and bounds are in variables.ts and tabled in docs/configuration.md.
 */
export function parseConfig(env: Bindings, options: ParseConfigOptions = {}): ConfigResult {
  const runtime = options.runtime ?? "node";
  const problems: string[] = [];
  const read = new Reader(env, problems);
  const config: Config = {
    runtime,
    functions: read.list("FUNCTIONS", FUNCTION_NAMES),
    port: read.integer("PORT"),
    host: read.optional("HOST"),
    tlsCertFile: read.optional("TLS_CERT_FILE"),
    tlsKeyFile: read.optional("TLS_KEY_FILE"),
    shutdownDelaySeconds: read.integer("SHUTDOWN_DELAY_SECONDS"),
    callerAuth: readCallerAuth(read),
    metricsTokens: readMetricsTokens(read),
    randomHostname: read.boolean("RANDOM_HOSTNAME"),
    logLevel: read.oneOf("LOG_LEVEL", LOG_LEVELS),
    requestingUser: read.oneOf("REVIEW_REQUESTING_USER", REQUESTING_USER_MODES),
    enforcement: read.oneOf("ENFORCEMENT", ENFORCEMENT_MODES),
    kube: readKubeSettings(read),
  };
  if ((config.tlsCertFile === undefined) !== (config.tlsKeyFile === undefined)) {
    problems.push("TLS_CERT_FILE and TLS_KEY_FILE must be set together");
  }
  // An unset or unknown CALLER_AUTH stands as "none" only as a placeholder, already reported: no rule judges it.
  const placeholders = new Set(read.optional("CALLER_AUTH") === config.callerAuth.mode ? [] : ["CALLER_AUTH"]);
  problems.push(...runtimeProblems(config, runtime, placeholders));
  return problems.length > 0 ? { ok: false, problems } : { ok: true, config: Object.freeze(config) };
}

/**
 * {@link parseConfig}, throwing instead of returning problems.
 * @throws ConfigurationError listing every problem.
 */
export function readConfig(env: Bindings, runtime: Runtime): Readonly<Config> {
  const parsed = parseConfig(env, { runtime });
  if (!parsed.ok) throw new ConfigurationError(parsed.problems);
  return parsed.config;
}
