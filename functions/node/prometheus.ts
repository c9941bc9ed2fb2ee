/**
 * The Node server's Prometheus metrics: the review recorder, the Kubernetes client's observer and the
 * credential refresh observers, and the text /metrics answers (./prometheus-text.ts) with the process metrics
 * (./process-metrics.ts). Only functions/node/server.ts imports this file, so none of it reaches the Worker, Lambda and
 * Azure bundles. Every label value comes from a fixed set (README: Metrics); nothing from a review becomes a label.
 */
import type { FunctionName } from "../../shared/config/index.ts";
import type { CacheName, KubeCallCode, KubeObserver, KubeResource, KubeVerb, RefreshObserver, RefreshOutcome } from "../../shared/observer.ts";
import type { MetricsExposition, ReviewRecorder } from "../metrics.ts";
import type { KubeCounters, TokenRefreshSource } from "./kube/create-gmsa-client.ts";
import { measureEventLoopLag, processFamilies } from "./process-metrics.ts";
import { counterFamily, EXPOSITION_CONTENT_TYPE, histogramFamily, sampledFamily, writeExposition, type Counter, type Family, type Histogram } from "./prometheus-text.ts";

/** Prefix of every metric of ours. */
export const METRIC_PREFIX = "gmsa_webhooks_";

/**
 * Review latency buckets in seconds: the API server's own webhook buckets (5 ms, 25 ms, 100 ms, 0.5 s, 1 s, 2.5 s,
 * `apiserver_admission_webhook_admission_duration_seconds`) and finer steps below, where a warm review lands, up to
 * the longest webhook timeout (30 s).
 */
export const REVIEW_BUCKETS_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** API call latency buckets in seconds (client-go's request latency range, to KUBE_REQUEST_TIMEOUT_MS's bound). */
export const KUBE_BUCKETS_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The operations an AdmissionReview names; anything else is counted as `other`. */
const OPERATIONS = new Set(["CREATE", "UPDATE", "DELETE", "CONNECT"]);
const CACHES: readonly CacheName[] = ["credspec", "access"];
const KUBE_CALLS: readonly [KubeVerb, KubeResource][] = [
  ["get", "gmsacredentialspecs"],
  ["create", "localsubjectaccessreviews"],
];

/** What the Node wiring binds (functions/node/deps.ts) and the app serves. */
export interface PrometheusMetrics {
  /** Our families, in exposition order (the process ones are read at each scrape). */
  families: readonly Family[];
  /** The reviews counter and latency histogram. */
  reviews: ReviewRecorder;
  /** API calls and cache lookups of the Kubernetes client. */
  kube: KubeObserver;
  /** The refresh observer of one credential source. */
  tokenRefreshes(source: TokenRefreshSource): RefreshObserver;
  /** Exec plugin runs and cache sizes, read from the client's counters at scrape time (once per metrics). */
  collectKubeCounters(read: () => KubeCounters): void;
  /** Our families' text, then the process metrics. */
  exposition(): Promise<MetricsExposition>;
}

/** Returns the map's value for `key`, made by `make` on first use (bound label children, so a review hashes nothing). */
function cached<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}

/** Creates the metrics, with no sample until something is counted. */
export function createPrometheusMetrics(): PrometheusMetrics {
  const reviewsTotal = counterFamily(
    `${METRIC_PREFIX}reviews_total`,
    "Admission reviews answered, by function, operation, decision and status code (200 when allowed).",
    ["function", "operation", "decision", "code"],
  );
  const reviewSeconds = histogramFamily(
    `${METRIC_PREFIX}review_duration_seconds`,
    "Time from reading an AdmissionReview to its reply, in seconds.",
    ["function"],
    REVIEW_BUCKETS_SECONDS,
  );
  const kubeTotal = counterFamily(
    `${METRIC_PREFIX}kube_requests_total`,
    "HTTP attempts to the Kubernetes API server (retries included), by verb, resource and status code (error: transport failure, timeout: deadline).",
    ["verb", "resource", "code"],
  );
  const kubeSeconds = histogramFamily(
    `${METRIC_PREFIX}kube_request_duration_seconds`,
    "Duration of one HTTP attempt to the Kubernetes API server, in seconds.",
    ["verb", "resource"],
    KUBE_BUCKETS_SECONDS,
  );
  const refreshesTotal = counterFamily(
    `${METRIC_PREFIX}token_refreshes_total`,
    "Credential refreshes towards the API server, by source and outcome (concurrent callers sharing one refresh count once).",
    ["source", "outcome"],
  );
  const cacheTotal = counterFamily(
    `${METRIC_PREFIX}cache_requests_total`,
    "Lookups in the credspec and access-review caches, by result (a switched-off cache misses every time).",
    ["cache", "result"],
  );
  const families: Family[] = [reviewsTotal, reviewSeconds, kubeTotal, kubeSeconds, refreshesTotal, cacheTotal];

  type ByCode = Map<number, Counter>;
  const reviewChildren = new Map<string, Map<boolean, Map<string, ByCode>>>();
  const reviewHistograms = new Map<string, Histogram>();
  const kubeChildren = new Map<KubeResource, { seconds: Histogram; byCode: Map<KubeCallCode, Counter> }>();
  for (const [verb, resource] of KUBE_CALLS) kubeChildren.set(resource, { seconds: kubeSeconds.labels({ verb, resource }), byCode: new Map() });
  const cacheChildren = new Map(CACHES.map((cache) => [cache, [cacheTotal.labels({ cache, result: "miss" }), cacheTotal.labels({ cache, result: "hit" })]] as const));

  const reviews: ReviewRecorder = {
    record(fn: FunctionName, allowed, code, operation = "other", durationMs) {
      const op = OPERATIONS.has(operation) ? operation : "other";
      // One map level per label, so a review builds no key; allowed reviews carry no status code (200).
      const status = code ?? (allowed ? 200 : 500);
      const byDecision = cached(reviewChildren, fn, () => new Map<boolean, Map<string, ByCode>>());
      const byOperation = cached(byDecision, allowed, () => new Map<string, ByCode>());
      const byCode = cached(byOperation, op, (): ByCode => new Map());
      cached(byCode, status, () => reviewsTotal.labels({ function: fn, operation: op, decision: allowed ? "allowed" : "denied", code: String(status) })).inc();
      if (durationMs !== undefined) cached(reviewHistograms, fn, () => reviewSeconds.labels({ function: fn })).observe(durationMs / 1000);
    },
  };

  const kube: KubeObserver = {
    kubeRequest(verb, resource, code, seconds) {
      const children = kubeChildren.get(resource);
      if (children === undefined) return;
      cached(children.byCode, code, () => kubeTotal.labels({ verb, resource, code: String(code) })).inc();
      children.seconds.observe(seconds);
    },
    cacheRequest(cache, hit) {
      cacheChildren.get(cache)?.[hit ? 1 : 0].inc();
    },
  };

  let collecting = false;
  const collectKubeCounters = (read: () => KubeCounters): void => {
    // A second set of these families would repeat their names in the exposition, which Prometheus refuses.
    if (collecting) throw new TypeError("collectKubeCounters was already called for these metrics");
    collecting = true;
    families.push(
      sampledFamily(`${METRIC_PREFIX}exec_plugin_runs_total`, "Runs of the kubeconfig exec plugin, by outcome.", "counter", () =>
        Object.entries<number>({ ...read().execRuns }).map(([outcome, count]) => [{ outcome }, count] as const),
      ),
      sampledFamily(`${METRIC_PREFIX}cache_entries`, "Entries held by the credspec and access-review caches.", "gauge", () => {
        const counters = read();
        return [
          [{ cache: "credspec" }, counters.credSpecCache.size],
          [{ cache: "access" }, counters.accessCache.size],
        ];
      }),
    );
  };

  return {
    families,
    reviews,
    kube,
    tokenRefreshes(source) {
      const children: Record<RefreshOutcome, Counter> = {
        success: refreshesTotal.labels({ source, outcome: "success" }),
        failure: refreshesTotal.labels({ source, outcome: "failure" }),
      };
      return (outcome) => children[outcome].inc();
    },
    collectKubeCounters,
    async exposition() {
      const lag = await measureEventLoopLag();
      return { contentType: EXPOSITION_CONTENT_TYPE, body: writeExposition([...families, ...processFamilies(lag)]) };
    },
  };
}

/** Every metric family /metrics can answer (ours and the process ones) with its type, for the dashboard test. */
export function listMetricFamilies(metrics: PrometheusMetrics): { name: string; type: string }[] {
  return [...metrics.families, ...processFamilies(0)].map(({ name, type }) => ({ name, type }));
}
