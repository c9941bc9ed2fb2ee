/**
 * What the app (functions/app.ts) is built from: the configuration and what each runtime brings.
 */
import type { ClientCertificateReader, CallerAuthOptions } from "../shared/http/caller-auth.ts";
import type { Config, FunctionName } from "../shared/config/index.ts";
import { createReviewCounters, type MetricsExposition, type ReviewRecorder } from "./metrics.ts";
import type { ReviewRouteDeps } from "./review-handlers.ts";
import pkg from "../package.json" with { type: "json" };

export interface AppDeps extends ReviewRouteDeps {
  /** The functions this deployment serves: both on the Node server, one per Worker. */
  functions: readonly FunctionName[];
  version: string;
  /**
   * Caller authentication (docs/security.md, "Who may call the functions"), checked before the body is read. In `path` mode the
   * functions answer at `/<name>/<secret>` only.
   */
  callerAuth: CallerAuthOptions;
  /** METRICS_TOKENS: bearer tokens GET /metrics requires; empty, /metrics is open. */
  metricsTokens: readonly string[];
  /** `mtls`: reads each request's client certificate. Only the Node server can (functions/node/client-certificate.ts). */
  clientCertificate?: ClientCertificateReader;
  /** Extra counters for the JSON /metrics (exec plugin runs, caches), merged with the review counters. */
  extraMetrics?: () => Record<string, number>;
  /**
   * What GET /metrics answers: the Node server passes its Prometheus registry's text. Absent: the JSON snapshot of
   * `counters` (when they keep one) and `extraMetrics`.
   */
  exposition?: () => Promise<MetricsExposition>;
  /** False once the process is shutting down: /readyz answers 503 so the endpoint is taken out of the Service. */
  ready?: () => boolean;
}

/**
 * What a runtime brings besides the configuration: its kube client, logger and platform specifics; `counters`
 * replaces the JSON review counters (the Node server's Prometheus registry).
 */
export type RuntimeDeps = Pick<AppDeps, "gmsa" | "logger" | "clientCertificate" | "extraMetrics" | "exposition" | "ready"> & {
  counters?: ReviewRecorder;
};

/** The deps of createApp from the configuration and what the runtime built: the same on every runtime. */
export function configuredDeps(config: Config, runtime: RuntimeDeps): AppDeps {
  return {
    ...runtime,
    functions: config.functions,
    version: pkg.version,
    now: () => Date.now(),
    randomBytes: (length) => crypto.getRandomValues(new Uint8Array(length)),
    counters: runtime.counters ?? createReviewCounters(),
    settings: {
      randomHostname: config.randomHostname,
      requestingUser: config.requestingUser,
      enforcement: config.enforcement,
    },
    callerAuth: config.callerAuth,
    metricsTokens: config.metricsTokens,
  };
}
