/**
 * The Node server's Prometheus metrics on prom-client: reviews, the Kubernetes client's calls and caches, credential
 * refreshes, exec plugin runs, and prom-client's default process and Node.js metrics. Every label value comes from a
 * fixed set (docs/operations.md, Metrics); nothing from a review becomes a label.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { KubeObserver, RefreshObserver } from "../../shared/observer.ts";
import type { AppMetrics } from "../metrics.ts";
import type { KubeCounters } from "./kube/create-gmsa-client.ts";
import type { TokenRefreshSource } from "./kube/load-credentials.ts";

/**
 * Review latency buckets in seconds: the API server's own webhook buckets (5 ms, 25 ms, 100 ms, 0.5 s, 1 s, 2.5 s,
 * `apiserver_admission_webhook_admission_duration_seconds`) and finer steps below, where a warm review lands, up to
 * the longest webhook timeout (30 s).
 */
export const REVIEW_BUCKETS_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** API call latency buckets in seconds (client-go's request latency range, to KUBE_REQUEST_TIMEOUT_MS's bound). */
const KUBE_BUCKETS_SECONDS = REVIEW_BUCKETS_SECONDS.slice(0, -1);

/** The operations an AdmissionReview names; anything else is counted as `other`, so a label keeps a fixed set. */
const OPERATIONS = new Set(["CREATE", "UPDATE", "DELETE", "CONNECT"]);

/** What the Node wiring binds (functions/node/deps.ts) and the app serves. */
export type PrometheusMetrics = ReturnType<typeof createPrometheusMetrics>;

/** Creates the metrics in a registry of their own, with no sample of ours until something is counted. */
export function createPrometheusMetrics() {
  const registry = new Registry();
  const common = { registers: [registry] };
  const prefixed = (name: string) => `gmsa_webhooks_${name}`;
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    new Counter({ ...common, name: prefixed(name), help, labelNames });
  const histogram = <L extends string>(name: string, help: string, labelNames: readonly L[], buckets: number[]) =>
    new Histogram({ ...common, name: prefixed(name), help, labelNames, buckets });
  const reviewsTotal = counter(
    "reviews_total",
    "Admission reviews answered, by function, operation, decision and status code (200 when allowed).",
    ["function", "operation", "decision", "code"],
  );
  const reviewSeconds = histogram(
    "review_duration_seconds",
    "Time from reading an AdmissionReview to its reply, in seconds.",
    ["function"],
    REVIEW_BUCKETS_SECONDS,
  );
  const kubeTotal = counter(
    "kube_requests_total",
    "HTTP attempts to the Kubernetes API server (retries included), by verb, resource and status code (error: transport failure, timeout: deadline).",
    ["verb", "resource", "code"],
  );
  const kubeSeconds = histogram(
    "kube_request_duration_seconds",
    "Duration of one HTTP attempt to the Kubernetes API server, in seconds.",
    ["verb", "resource"],
    KUBE_BUCKETS_SECONDS,
  );
  const refreshesTotal = counter(
    "token_refreshes_total",
    "Credential refreshes towards the API server, by source and outcome (concurrent callers sharing one refresh count once).",
    ["source", "outcome"],
  );
  const cacheTotal = counter(
    "cache_requests_total",
    "Lookups in the credspec and access-review caches, by result (a switched-off cache misses every time).",
    ["cache", "result"],
  );
  collectDefaultMetrics({ register: registry });

  return {
    /** The reviews counter and latency histogram; an allowed review carries no status code and counts as 200. */
    reviews: {
      record(fn, allowed, code, operation = "other", durationMs) {
        const decision = allowed ? "allowed" : "denied";
        reviewsTotal.inc({
          function: fn,
          operation: OPERATIONS.has(operation) ? operation : "other",
          decision,
          code: String(code ?? (allowed ? 200 : 500)),
        });
        if (durationMs !== undefined) reviewSeconds.observe({ function: fn }, durationMs / 1000);
      },
    } satisfies AppMetrics["reviews"],
    kube: {
      kubeRequest(verb, resource, code, seconds) {
        kubeTotal.inc({ verb, resource, code: String(code) });
        kubeSeconds.observe({ verb, resource }, seconds);
      },
      cacheRequest: (cache, hit) => cacheTotal.inc({ cache, result: hit ? "hit" : "miss" }),
    } satisfies KubeObserver,
    tokenRefreshes:
      (source: TokenRefreshSource): RefreshObserver =>
      (outcome) =>
        refreshesTotal.inc({ source, outcome }),
    /** Exec plugin runs and cache sizes, read from the client at each scrape. @throws Error when called twice (names repeat). */
    collectKubeCounters(read: () => KubeCounters): void {
      new Counter({
        ...common,
        name: prefixed("exec_plugin_runs_total"),
        help: "Runs of the kubeconfig exec plugin, by outcome.",
        labelNames: ["outcome"] as const,
        collect() {
          this.reset();
          for (const [outcome, count] of Object.entries<number>({ ...read().execRuns })) this.inc({ outcome }, count);
        },
      });
      new Gauge({
        ...common,
        name: prefixed("cache_entries"),
        help: "Entries held by the credspec and access-review caches.",
        labelNames: ["cache"] as const,
        collect() {
          const { credSpecCache, accessCache } = read();
          this.set({ cache: "credspec" }, credSpecCache.size);
          this.set({ cache: "access" }, accessCache.size);
        },
      });
    },
    allowedLevel: "debug" as const,
    /** What /metrics answers: the text exposition (format 0.0.4) of ours and prom-client's default metrics. */
    exposition: async () => ({ contentType: registry.contentType, body: await registry.metrics() }),
  };
}
