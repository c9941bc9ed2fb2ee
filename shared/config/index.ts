/** The configuration: every variable (variables.ts) read into one frozen Config, every problem reported together. */
import { readSecrets } from "../caller-auth/mode.ts";
import { checkCallerAuthListener, readCallerAuth } from "./caller-auth.ts";
import { readKubeSettings } from "./kube.ts";
import { Reader, type Bindings } from "./reader.ts";
import type { Runtime } from "./runtime.ts";

export { CLOUD_TOKENS, type CloudTokenKind } from "../credentials/clouds/index.ts";
export { readCloudTokenSettings } from "./cloud-token.ts";
export { parseKubeSettings, type KubeSettings } from "./kube.ts";
export type { Bindings } from "./reader.ts";
export { FUNCTION_NAMES, VARIABLES, withoutPluginSecrets, type FunctionName, type VariableName } from "./variables.ts";

export type { Runtime } from "./runtime.ts";

/** Everything the functions read from their environment, parsed once at start-up. */
export type Config = ReturnType<typeof readSettings>;

/** A start-up failure: the configuration cannot give a working function. Not an admission outcome. */
export class ConfigurationError extends Error {
  /** Every problem found, each a sentence naming the setting. */
  readonly problems: readonly string[];

  constructor(problems: readonly string[], heading = "configuration") {
    super(`${heading}:\n- ${problems.join("\n- ")}`);
    this.name = new.target.name;
    this.problems = problems;
  }
}

/** A start-up failure: the kubeconfig or settings cannot give a working client. Not an admission outcome. */
export class KubeConfigurationError extends ConfigurationError {
  constructor(problems: readonly string[]) {
    super(problems, "Kubernetes client configuration");
  }
}

function readSettings(read: Reader, runtime: Runtime) {
  return {
    runtime,
    functions: read.list("FUNCTIONS"),
    port: read.integer("PORT"),
    /** Node server: address to listen on; undefined means every interface. */
    host: read.optional("HOST"),
    tlsCertFile: read.optional("TLS_CERT_FILE"),
    tlsKeyFile: read.optional("TLS_KEY_FILE"),
    /** Node server: after SIGTERM, keep serving this long with /readyz at 503 before closing. */
    shutdownDelaySeconds: read.integer("SHUTDOWN_DELAY_SECONDS"),
    callerAuth: readCallerAuth(read),
    /** Bearer tokens GET /metrics requires; empty: /metrics is open. */
    metricsTokens: readSecrets(read, "METRICS_TOKENS"),
    randomHostname: read.boolean("RANDOM_HOSTNAME"),
    logLevel: read.oneOf("LOG_LEVEL"),
    requestingUser: read.oneOf("REVIEW_REQUESTING_USER"),
    enforcement: read.oneOf("ENFORCEMENT"),
    kube: readKubeSettings(read),
  };
}

/** Parses the environment into a frozen Config; `runtime` decides what some settings may be. @throws ConfigurationError listing every problem. */
export function readConfig(env: Bindings, runtime: Runtime): Readonly<Config> {
  const problems: string[] = [];
  const read = new Reader(env, problems);
  const config = readSettings(read, runtime);
  if ((config.tlsCertFile === undefined) !== (config.tlsKeyFile === undefined)) {
    problems.push("TLS_CERT_FILE and TLS_KEY_FILE must be set together");
  }
  // An unset or unknown CALLER_AUTH stands as "none" only as a placeholder, already reported: it is not judged.
  const runtimeProblem =
    read.optional("CALLER_AUTH") === config.callerAuth.mode
      ? checkCallerAuthListener(config.callerAuth, config)
      : undefined;
  if (runtimeProblem !== undefined) problems.push(runtimeProblem);
  if (problems.length > 0) throw new ConfigurationError(problems);
  return Object.freeze(config);
}
