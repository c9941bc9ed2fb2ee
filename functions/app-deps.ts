/**
 * What the HTTP surface is built from (functions/app.ts, functions/review-endpoint.ts): the configuration and what
 * each runtime brings. Kept apart from the Hono app, so that adapters answering the review routes without Hono
 * (the Node server, Lambda) do not load it.
 */
import type { CallerAuthOptions } from "../shared/http/caller-auth.ts";
import type { Sha256 } from "../shared/http/timing-safe-equal.ts";
import type { Config, FunctionName } from "../shared/config/index.ts";
import { createReviewCounters, type MetricsExposition, type ReviewRecorder } from "./metrics.ts";
import type { ReviewRouteDeps } from "./review-responder.ts";
import { VERSION } from "./version.ts";

export interface AppDeps extends ReviewRouteDeps {
  /** The functions this deployment serves: both on the Node server, one per Worker. */
  functions: readonly FunctionName[];
  version: string;
  /**
   * Caller authentication (DESIGN.md section 8, the README's Security section), checked before the body is read.
   * In `path` mode the functions and /metrics answer at `/<name>/<secret>` only.
   */
  callerAuth: CallerAuthOptions;
  /** The adapter reads each connection's client certificate (`mtls`): only the Node server's can. */
  clientCertificates?: boolean;
  /** SHA-256 for caller-auth secrets (default WebCrypto): the Node adapters pass node:crypto's, which is synchronous. */
  digest?: Sha256;
  /** Used when the API server sends no `?timeout=`. */
  defaultTimeoutMs: number;
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
export type RuntimeDeps = Pick<AppDeps, "gmsa" | "logger" | "clientCertificates" | "digest" | "extraMetrics" | "exposition" | "ready"> & {
  counters?: ReviewRecorder;
};

/** The deps of {@link createApp} from the configuration and what the runtime built: the same on every runtime. */
export function configuredDeps(config: Config, runtime: RuntimeDeps): AppDeps {
  return {
    ...runtime,
    functions: config.functions,
    version: VERSION,
    now: () => Date.now(),
    randomBytes: (length) => crypto.getRandomValues(new Uint8Array(length)),
    counters: runtime.counters ?? createReviewCounters(),
    bodyLimitBytes: config.bodyLimitBytes,
    defaultTimeoutMs: config.defaultTimeoutMs,
    settings: {
      randomHostname: config.randomHostname,
      requestingUser: config.requestingUser,
      enforcement: config.enforcement,
    },
    callerAuth: config.callerAuth,
  };
}
