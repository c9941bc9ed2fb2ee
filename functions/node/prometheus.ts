/**
 * The Node server's Prometheus metrics on prom-client: the review recorder, the Kubernetes client's observer, the
 * credential refresh observers, the client's counters read at scrape time, and prom-client's default process and
 * Node.js metrics. Only functions/node/server.ts imports this file, so none of it reaches the Worker, Lambda and
 * Azure bundles. Every label value comes from a fixed set (docs/operations.md, Metrics); nothing from a review becomes a label.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { FunctionName } from "../../shared/config/index.ts";
import type { KubeObserver, RefreshObserver } from "../../shared/observer.ts";
import type { MetricsExposition, ReviewRecorder } from "../metrics.ts";
import type { KubeCounters, TokenRefreshSource } from "./kube/create-gmsa-client.ts";

/** Prefix of every metric of ours. */
const METRIC_PREFIX = "gmsa_webhooks_";

/**
 * Review latency buckets in seconds: the API server's own webhook buckets (5 ms, 25 ms, 100 ms, 0.5 s, 1 s, 2.5 s,
 * `apiserver_admission_webhook_admission_duration_seconds`) and finer steps below, where a warm review lands, up to
 * the longest webhook timeout (30 s).
 */
export const REVIEW_BUCKETS_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** API call latency buckets in seconds (client-go's request latency range, to KUBE_REQUEST_TIMEOUT_MS's bound). */
const KUBE_BUCKETS_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The operations an AdmissionReview names; anything else is counted as `other`, so a label keeps a fixed set. */
const OPERATIONS = new Set(["CREATE", "UPDATE", "DELETE", "CONNECT"]);

/** What the Node wiring binds (functions/node/deps.ts) and the app serves. */
export interface PrometheusMetrics {
  /** The reviews counter and latency histogram. */
  reviews: ReviewRecorder;
  /** API calls and cache lookups of the Kubernetes client. */
  kube: KubeObserver;
  /** The refresh observer of one credential source. */
  tokenRefreshes(source: TokenRefreshSource): RefreshObserver;
  /**
   * Exec plugin runs and cache sizes, read from the client's counters at scrape time.
   * @throws Error when called twice for these metrics (the registry refuses a name twice).
   */
  collectKubeCounters(read: () => KubeCounters): void;
  /** What /metrics answers: the text exposition (format 0.0.4) of ours and prom-client's default metrics. */
  exposition(): Promise<MetricsExposition>;
}

/** Creates the metrics in a registry of their own, with no sample of ours until something is counted. */
export function createPrometheusMetrics(): PrometheusMetrics {
  const registry = new Registry();
  const registers = [registry];
  const reviewsTotal = new Counter({
    name: `${METRIC_PREFIX}reviews_total`,
    help: "Admission reviews answered, by function, operation, decision and status code (200 when allowed).",
    labelNames: ["function", "operation", "decision", "code"] as const,
    registers,
  });
  const reviewSeconds = new Histogram({
    name: `${METRIC_PREFIX}review_duration_seconds`,
    help: "Time from reading an AdmissionReview to its reply, in seconds.",
    labelNames: ["function"] as const,
    buckets: REVIEW_BUCKETS_SECONDS,
    registers,
  });
  const kubeTotal = new Counter({
    name: `${METRIC_PREFIX}kube_requests_total`,
    help: "HTTP attempts to the Kubernetes API server (retries included), by verb, resource and status code (error: transport failure, timeout: deadline).",
    labelNames: ["verb", "resource", "code"] as const,
    registers,
  });
  const kubeSeconds = new Histogram({
    name: `${METRIC_PREFIX}kube_request_duration_seconds`,
    help: "Duration of one HTTP attempt to the Kubernetes API server, in seconds.",
    labelNames: ["verb", "resource"] as const,
    buckets: KUBE_BUCKETS_SECONDS,
    registers,
  });
  const refreshesTotal = new Counter({
    name: `${METRIC_PREFIX}token_refreshes_total`,
    help: "Credential refreshes towards the API server, by source and outcome (concurrent callers sharing one refresh count once).",
    labelNames: ["source", "outcome"] as const,
    registers,
  });
  const cacheTotal = new Counter({
    name: `${METRIC_PREFIX}cache_requests_total`,
    help: "Lookups in the credspec and access-review caches, by result (a switched-off cache misses every time).",
    labelNames: ["cache", "result"] as const,
    registers,
  });
  collectDefaultMetrics({ register: registry });

  const reviews: ReviewRecorder = {
    record(fn: FunctionName, allowed, code, operation = "other", durationMs) {
      // Allowed reviews carry no status code: they count as 200.
      const status = code ?? (allowed ? 200 : 500);
      reviewsTotal.inc({ function: fn, operation: OPERATIONS.has(operation) ? operation : "other", decision: allowed ? "allowed" : "denied", code: String(status) });
      if (durationMs !== undefined) reviewSeconds.observe({ function: fn }, durationMs / 1000);
    },
  };

  const kube: KubeObserver = {
    kubeRequest(verb, resource, code, seconds) {
      kubeTotal.inc({ verb, resource, code: String(code) });
      kubeSeconds.observe({ verb, resource }, seconds);
    },
    cacheRequest(cache, hit) {
      cacheTotal.inc({ cache, result: hit ? "hit" : "miss" });
    },
  };

  const collectKubeCounters = (read: () => KubeCounters): void => {
    new Counter({
      name: `${METRIC_PREFIX}exec_plugin_runs_total`,
      help: "Runs of the kubeconfig exec plugin, by outcome.",
      labelNames: ["outcome"] as const,
      registers,
      // The client keeps the totals; each scrape copies them.
      collect() {
        this.reset();
        for (const [outcome, count] of Object.entries<number>({ ...read().execRuns })) this.inc({ outcome }, count);
      },
    });
    new Gauge({
      name: `${METRIC_PREFIX}cache_entries`,
      help: "Entries held by the credspec and access-review caches.",
      labelNames: ["cache"] as const,
      registers,
      collect() {
        const counters = read();
        this.set({ cache: "credspec" }, counters.credSpecCache.size);
        this.set({ cache: "access" }, counters.accessCache.size);
      },
    });
  };

  return {
    reviews,
    kube,
    tokenRefreshes: (source) => (outcome) => refreshesTotal.inc({ source, outcome }),
    collectKubeCounters,
    async exposition() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
