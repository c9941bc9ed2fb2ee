// What the Kubernetes client and credential caches report, for metrics and each review's log line. Label values are
// fixed sets: nothing here carries a name from a review.

/** The resources the functions call: three for reviews (pods: the target of an exec or attach), one for readiness. */
export type KubeResource = "gmsacredentialspecs" | "localsubjectaccessreviews" | "pods" | "selfsubjectaccessreviews";
/** The HTTP status of one attempt, or why it had none: `error` (transport), `timeout` (the deadline passed). */
export type KubeCallCode = number | "error" | "timeout";
/** The client's two caches (docs/configuration.md, Caches and their staleness). */
export type CacheName = "credspec" | "access";
/** How a credential refresh ended. */
export type RefreshOutcome = "success" | "failure";

/** Process-wide observations of the Kubernetes client; every method must be cheap (it runs per call). */
export interface KubeObserver {
  /** One HTTP attempt to the API server ended (retries are attempts of their own); `verb` as the API server's metrics name it. */
  kubeRequest(verb: "get" | "create", resource: KubeResource, code: KubeCallCode, seconds: number): void;
  /** One cache lookup (a switched-off cache misses every time). */
  cacheRequest(cache: CacheName, hit: boolean): void;
}

/** Called once per credential refresh a source makes (concurrent callers sharing one refresh count once). */
export type RefreshObserver = (outcome: RefreshOutcome) => void;

/** What one review's calls did, for its log line: filled in by the client as it works. */
export interface CallTally {
  kubeRequests: number;
  cacheHits: number;
  cacheMisses: number;
  /** Set when a call of this review waited for a credential refresh (its own or one it shared). */
  tokenRefresh?: RefreshOutcome;
}
