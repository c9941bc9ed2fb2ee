/**
 * What a setting needs of the runtime it runs on, in one place: each rule looks at the parsed configuration and the
 * runtime and names a problem, or nothing. A rule for another runtime-bound setting is one more entry.
 */
import type { Config } from "./index.ts";

/** Where the functions run. */
export type Runtime = "node" | "workers" | "lambda" | "azure";

/** Runtimes on which TLS ends before the function, which therefore never sees a client certificate. */
const MTLS_ELSEWHERE: Record<Exclude<Runtime, "node">, string> = {
  workers:
    "CALLER_AUTH=mtls needs the Node server: on Cloudflare Workers TLS ends at Cloudflare, so client certificates are " +
    "configured there (API Shield mTLS, https://developers.cloudflare.com/api-shield/security/mtls/, enforced by a WAF " +
    "rule on cf.tls_client_auth.cert_verified); choose bearer or jwt here",
  lambda: platformMtls(),
  azure: platformMtls(),
};

function platformMtls(): string {
  return (
    "CALLER_AUTH=mtls needs the Node server (npm start, infra/node): on a function platform TLS ends at the platform's " +
    "front end, so the function never sees the caller's certificate; choose bearer, jwt or path"
  );
}

/** The runtimes' names, for messages. */
const RUNTIME_NAMES: Record<Runtime, string> = { node: "the Node server", workers: "Cloudflare Workers", lambda: "AWS Lambda", azure: "Azure Functions" };

/** Addresses only this machine can reach: the one place where no caller authentication is acceptable. */
function isLoopback(host: string | undefined): boolean {
  return host !== undefined && (host === "localhost" || host === "::1" || /^127(?:\.\d{1,3}){3}$/.test(host));
}

function noneOffLoopback(host: string | undefined, runtime: Runtime): string {
  const where =
    runtime === "node"
      ? `the Node server listens on ${host === undefined ? "every interface (HOST is unset)" : `"${host}"`}`
      : `${RUNTIME_NAMES[runtime]} is reachable from the network`;
  return (
    `CALLER_AUTH=none lets anyone who reaches the function in, and ${where}: none is accepted only by the Node ` +
    `server listening on loopback (HOST=127.0.0.1, ::1 or localhost); choose ${runtime === "node" ? "bearer, jwt, path or mtls" : "bearer, jwt or path"}`
  );
}

interface RuntimeRule {
  /** The variable whose value the rule judges. */
  variable: "CALLER_AUTH";
  check(config: Omit<Config, "runtime">, runtime: Runtime): string | undefined;
}

const RULES: readonly RuntimeRule[] = [
  {
    variable: "CALLER_AUTH",
    check: (config, runtime) =>
      config.callerAuth.mode === "none" && (runtime !== "node" || !isLoopback(config.host)) ? noneOffLoopback(config.host, runtime) : undefined,
  },
  { variable: "CALLER_AUTH", check: (config, runtime) => (config.callerAuth.mode === "mtls" && runtime !== "node" ? MTLS_ELSEWHERE[runtime] : undefined) },
  {
    variable: "CALLER_AUTH",
    check: (config, runtime) =>
      config.callerAuth.mode === "mtls" && runtime === "node" && (config.tlsCertFile === undefined || config.tlsKeyFile === undefined)
        ? "CALLER_AUTH=mtls needs HTTPS: set TLS_CERT_FILE and TLS_KEY_FILE"
        : undefined,
  },
];

/**
 * The problems of `config` on `runtime`, in rule order. Rules about a variable in `placeholders` are skipped: its
 * value in `config` is a stand-in for one already reported as missing or invalid, not a choice to judge.
 */
export function runtimeProblems(config: Omit<Config, "runtime">, runtime: Runtime, placeholders: ReadonlySet<string> = new Set()): string[] {
  return RULES.filter((rule) => !placeholders.has(rule.variable))
    .map((rule) => rule.check(config, runtime))
    .filter((problem) => problem !== undefined);
}
