/**
 * What both runtimes of the local functions stack share: how one function is launched, what a
 * started one looks like, and the configuration every function gets.
 */
import type { LocalClusterInfo } from "./cluster.ts";
import type { CertificatePair } from "./pki.ts";
import type { ManagedProcess } from "./processes.ts";
import { VARIABLES, type FunctionName } from "../../shared/config/index.ts";

/** Everything a runtime needs to start one function. */
export interface FunctionLaunch {
  cluster: LocalClusterInfo;
  fn: FunctionName;
  /** The stack's own temporary folder (kubeconfigs, count files, bundles). */
  dir: string;
  /** Where the function's stdout and stderr go. */
  logFile: string;
  /** HTTPS certificate for 127.0.0.1 and localhost, signed by the cluster CA. */
  serving: CertificatePair;
  /** The token the API server sends (`CALLER_AUTH_TOKENS`). */
  callerToken: string;
  /** Extra configuration for the function (env on Node, bindings on Workers); wins over ours. */
  env: Record<string, string>;
}

/** A function whose process has started (not necessarily listening yet). */
export interface StartedFunction {
  fn: FunctionName;
  /** `https://127.0.0.1:<port>`, without a path. */
  baseUrl: string;
  process: ManagedProcess;
  logFile: string;
  /** The exec plugin's run log (Node runtime only). */
  countFile?: string;
}

/**
 * Every variable the functions read (the one table, shared/config/variables.ts): inherited values are dropped so
 * that a developer's shell cannot change what the stack runs, the platform's own (AWS_*, IDENTITY_*) included.
 */
const CONFIG_NAMES: ReadonlySet<string> = new Set(Object.keys(VARIABLES));

/** The inherited environment without the functions' configuration names. */
export function inheritedEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !CONFIG_NAMES.has(name)));
}

/**
 * The Node function's whole environment: the inherited one (minus configuration), then
 * `specific`, bearer caller authentication, then `launch.env`.
 */
export function functionEnv(launch: FunctionLaunch, specific: Record<string, string>): NodeJS.ProcessEnv {
  return {
    ...inheritedEnv(),
    ...specific,
    CALLER_AUTH: "bearer",
    CALLER_AUTH_TOKENS: launch.callerToken,
    // No Service to leave locally: stop at once on SIGTERM (the stack's stop gives 5 s before SIGKILL).
    SHUTDOWN_DELAY_SECONDS: "0",
    ...launch.env,
  };
}
