import type { CallerAuthOptions } from "./http/caller-auth.ts";
import { readCallerAuth, type Runtime } from "./http/caller-auth-config.ts";
import { LOG_LEVELS, type LogLevel } from "./log.ts";

/** The functions a deployment can serve (DESIGN.md section 2). */
export const FUNCTION_NAMES = ["expand", "authorize"] as const;
export type FunctionName = (typeof FUNCTION_NAMES)[number];

/** Environment variables (Node) or Worker vars/secrets, all strings. */
export type Bindings = Record<string, string | undefined>;

/** Everything the functions read from their environment, parsed once at start-up. */
export interface Config {
  functions: FunctionName[];
  port: number;
  /** Node server: address to listen on; undefined means every interface. */
  host: string | undefined;
  tlsCertFile: string | undefined;
  tlsKeyFile: string | undefined;
  callerAuth: CallerAuthOptions;
  randomHostname: boolean;
  logLevel: LogLevel;
  bodyLimitBytes: number;
  maxCredSpecNames: number;
  defaultTimeoutMs: number;
}

export type ConfigResult = { ok: true; config: Readonly<Config> } | { ok: false; problems: string[] };

export interface ParseConfigOptions {
  /** Where the functions run; some settings exist on one runtime only (CALLER_AUTH=mtls: Node). Default "node". */
  runtime?: Runtime;
}

/**
 * Parses the environment into a frozen Config, reporting every problem together (never only the first).
 * Variable names and defaults are tabled in the README.
 */
export function parseConfig(env: Bindings, options: ParseConfigOptions = {}): ConfigResult {
  const problems: string[] = [];
  const read = new Reader(env, problems);
  const functions = read.list("FUNCTIONS", FUNCTION_NAMES, [...FUNCTION_NAMES]);
  const config: Config = {
    functions,
    port: read.integer("PORT", 8443, 0, 65535),
    host: read.optional("HOST"),
    tlsCertFile: read.optional("TLS_CERT_FILE"),
    tlsKeyFile: read.optional("TLS_KEY_FILE"),
    callerAuth: readCallerAuth(read, problems, options.runtime),
    randomHostname: read.boolean("RANDOM_HOSTNAME", false),
    logLevel: read.oneOf("LOG_LEVEL", LOG_LEVELS, "info"),
    bodyLimitBytes: read.integer("BODY_LIMIT_BYTES", 8 * 1024 * 1024, 1024, 64 * 1024 * 1024),
    maxCredSpecNames: read.integer("MAX_CREDSPECS_PER_POD", 16, 1, 256),
    defaultTimeoutMs: read.integer("DEFAULT_WEBHOOK_TIMEOUT_MS", 10_000, 100, 30_000),
  };
  if ((config.tlsCertFile === undefined) !== (config.tlsKeyFile === undefined)) {
    problems.push("TLS_CERT_FILE and TLS_KEY_FILE must be set together");
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, config: Object.freeze(config) };
}

/** Reads typed values, recording a problem (and returning the default) for each bad one. */
export class Reader {
  readonly env: Bindings;
  readonly problems: string[];

  constructor(env: Bindings, problems: string[]) {
    this.env = env;
    this.problems = problems;
  }

  optional(name: string): string | undefined {
    const value = this.env[name]?.trim();
    return value === undefined || value === "" ? undefined : value;
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const text = this.optional(name);
    if (text === undefined) return fallback;
    const value = Number(text);
    if (!Number.isInteger(value) || value < min || value > max) {
      this.problems.push(`${name} must be an integer from ${min} to ${max}, not "${text}"`);
      return fallback;
    }
    return value;
  }

  boolean(name: string, fallback: boolean): boolean {
    const text = this.optional(name)?.toLowerCase();
    if (text === undefined) return fallback;
    if (text === "true" || text === "false") return text === "true";
    this.problems.push(`${name} must be true or false, not "${text}"`);
    return fallback;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const text = this.optional(name);
    if (text === undefined) return fallback;
    if ((allowed as readonly string[]).includes(text)) return text as T;
    this.problems.push(`${name} must be one of ${allowed.join(", ")}, not "${text}"`);
    return fallback;
  }

  list<T extends string>(name: string, allowed: readonly T[], fallback: T[]): T[] {
    const text = this.optional(name);
    if (text === undefined) return fallback;
    const items = text.split(",").map((s) => s.trim()).filter((s) => s !== "");
    const bad = items.filter((s) => !(allowed as readonly string[]).includes(s));
    if (bad.length > 0 || items.length === 0) {
      this.problems.push(`${name} must list some of ${allowed.join(", ")}, not "${text}"`);
      return fallback;
    }
    return [...new Set(items)] as T[];
  }
}
