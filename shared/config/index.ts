/** The configuration: every variable (variables.ts) read into one frozen Config, every problem reported together. */
import { readCallerAuth, readSecrets } from "./caller-auth.ts";
import { readKubeSettings } from "./kube.ts";
import { Reader, type Bindings } from "./reader.ts";

export { CLOUD_TOKENS, readCloudTokenSettings, type CloudTokenKind } from "./cloud-token.ts";
export { parseKubeSettings, type KubeSettings } from "./kube.ts";
export type { Bindings } from "./reader.ts";
export { FUNCTION_NAMES, VARIABLES, withoutPluginSecrets, type FunctionName, type VariableName } from "./variables.ts";

/** Where the functions run. */
export type Runtime = "node" | "workers" | "lambda" | "azure";

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

/** The runtimes' names, for messages. */
const RUNTIME_NAMES: Record<Runtime, string> = {
  node: "the Node server",
  workers: "Cloudflare Workers",
  lambda: "AWS Lambda",
  azure: "Azure Functions",
};

/** What the caller-auth mode needs of the runtime: none only on a loopback Node server, mtls only where TLS ends in the function. */
function callerAuthOnRuntime({
  runtime,
  host,
  tlsCertFile,
  tlsKeyFile,
  callerAuth: { mode },
}: Config): string | undefined {
  // Addresses only this machine can reach: the one place where no caller authentication is acceptable.
  const loopback = host !== undefined && (host === "localhost" || host === "::1" || /^127(?:\.\d{1,3}){3}$/.test(host));
  if (mode === "none" && (runtime !== "node" || !loopback)) {
    const where =
      runtime === "node"
        ? `the Node server listens on ${host === undefined ? "every interface (HOST is unset)" : `"${host}"`}`
        : `${RUNTIME_NAMES[runtime]} is reachable from the network`;
    return (
      `CALLER_AUTH=none lets anyone who reaches the function in, and ${where}: none is accepted only by the Node ` +
      `server listening on loopback (HOST=127.0.0.1, ::1 or localhost); choose ${runtime === "node" ? "bearer, jwt, path or mtls" : "bearer, jwt or path"}`
    );
  }
  if (mode !== "mtls") return undefined;
  // Off the Node server, TLS ends before the function, which therefore never sees a client certificate.
  if (runtime === "workers") {
    return (
      "CALLER_AUTH=mtls needs the Node server: on Cloudflare Workers TLS ends at Cloudflare, so client certificates are " +
      "configured there (API Shield mTLS, https://developers.cloudflare.com/api-shield/security/mtls/, enforced by a WAF " +
      "rule on cf.tls_client_auth.cert_verified); choose bearer or jwt here"
    );
  }
  if (runtime !== "node") {
    return (
      "CALLER_AUTH=mtls needs the Node server (npm start, infra/deploy/node): on a function platform TLS ends at the platform's " +
      "front end, so the function never sees the caller's certificate; choose bearer, jwt or path"
    );
  }
  if (tlsCertFile === undefined || tlsKeyFile === undefined)
    return "CALLER_AUTH=mtls needs HTTPS: set TLS_CERT_FILE and TLS_KEY_FILE";
  return undefined;
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
    read.optional("CALLER_AUTH") === config.callerAuth.mode ? callerAuthOnRuntime(config) : undefined;
  if (runtimeProblem !== undefined) problems.push(runtimeProblem);
  if (problems.length > 0) throw new ConfigurationError(problems);
  return Object.freeze(config);
}
