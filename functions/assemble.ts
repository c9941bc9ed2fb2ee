import type { Context, Hono } from "hono";
import { parseConfig, type Bindings, type Config } from "../shared/config.ts";
import { ConfigurationError } from "../shared/configuration-error.ts";
import type { ClientCertificate } from "../shared/http/caller-auth.ts";
import type { Sha256 } from "../shared/http/timing-safe-equal.ts";
import type { AppEnv } from "../shared/http/env.ts";
import type { GmsaClient } from "../shared/kube/gmsa-client.ts";
import { parseKubeSettings, type KubeSettings } from "../shared/kube/settings.ts";
import { createJsonLogger, type Logger } from "../shared/log.ts";
import { createApp } from "./app.ts";
import { createReviewCounters } from "./metrics.ts";
import { VERSION } from "./version.ts";

/** Config and kube settings from one environment, every problem of both reported together. */
export function readSettings(env: Bindings, runtime: "node" | "workers"): { config: Readonly<Config>; kube: KubeSettings } {
  const parsed = parseConfig(env, { runtime });
  const kube = parseKubeSettings(env);
  const problems = [...(parsed.ok ? [] : parsed.problems), ...kube.problems];
  if (!parsed.ok || problems.length > 0) throw new ConfigurationError(problems);
  return { config: parsed.config, kube: kube.settings };
}

/** The JSON-lines logger at the configured level. */
export function createLogger(config: Config, write: (line: string) => void): Logger {
  return createJsonLogger({ level: config.logLevel, write });
}

/** What an adapter brings that differs by runtime. */
export interface RuntimeParts {
  gmsa: GmsaClient;
  logger: Logger;
  /** Counters of the kube client (caches, exec plugin runs), flattened into /metrics. */
  kubeMetrics: () => Record<string, number>;
  /** The connection's client certificate (Node server, CALLER_AUTH=mtls). */
  readClientCertificate?: (c: Context) => ClientCertificate | undefined;
  /** SHA-256 for caller-auth secrets where the runtime has a synchronous one (Node). */
  digest?: Sha256;
}

/** Builds the app once per process or isolate, the same way on every runtime. */
export function assembleApp(config: Config, parts: RuntimeParts): Hono<AppEnv> {
  return createApp({
    functions: config.functions,
    version: VERSION,
    gmsa: parts.gmsa,
    logger: parts.logger,
    now: () => Date.now(),
    randomBytes: (length) => crypto.getRandomValues(new Uint8Array(length)),
    counters: createReviewCounters(),
    bodyLimitBytes: config.bodyLimitBytes,
    defaultTimeoutMs: config.defaultTimeoutMs,
    settings: { randomHostname: config.randomHostname, maxCredSpecNames: config.maxCredSpecNames },
    callerAuth: config.callerAuth,
    ...(parts.readClientCertificate === undefined ? {} : { readClientCertificate: parts.readClientCertificate }),
    ...(parts.digest === undefined ? {} : { digest: parts.digest }),
    extraMetrics: parts.kubeMetrics,
  });
}

/** Flattens nested numeric counters into `a_b_c` keys for /metrics. */
export function flattenCounters(value: object, prefix = ""): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, child] of Object.entries(value)) {
    const name = prefix === "" ? key : `${prefix}_${key}`;
    if (typeof child === "number") out[name] = child;
    else if (typeof child === "object" && child !== null) Object.assign(out, flattenCounters(child as object, name));
  }
  return out;
}
