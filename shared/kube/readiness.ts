/** Whether the API server accepts this deployment's credential and its RBAC has what its functions need (docs/operations.md, Readiness). */
import { CREDSPEC_GROUP, CREDSPEC_RESOURCE } from "../credspec/resource.ts";
import { AdmissionError } from "../errors.ts";
import type { FunctionName } from "../config/variables.ts";
import { reviewsCodeRunning } from "../policy/authorize.ts";
import type { RequestingUserMode } from "../policy/facts.ts";
import { readAccessVerdict } from "./access-reviews.ts";
import type { KubeRequester } from "./request.ts";

/** One permission a function needs, as SelfSubjectAccessReview resourceAttributes. */
type Need = { verb: string; group: string; resource: string };

const GET_CREDSPECS: Need = { verb: "get", group: CREDSPEC_GROUP, resource: CREDSPEC_RESOURCE };
/** What each function calls in every mode (docs/security.md, RBAC): authorize also reviews the pod's service account. */
export const FUNCTION_NEEDS: Record<FunctionName, readonly Need[]> = {
  expand: [GET_CREDSPECS],
  authorize: [GET_CREDSPECS, { verb: "create", group: "authorization.k8s.io", resource: "localsubjectaccessreviews" }],
};

const GET_PODS: Need = { verb: "get", group: "", resource: "pods" };

/**
 * What `fn` calls with REVIEW_REQUESTING_USER `mode`: its {@link FUNCTION_NEEDS}, and for authorize in the modes that
 * review exec and attach, `get` on the pod each goes into (without it every such review is a 500).
 */
export function functionNeeds(fn: FunctionName, mode: RequestingUserMode): readonly Need[] {
  return fn === "authorize" && reviewsCodeRunning(mode) ? [...FUNCTION_NEEDS[fn], GET_PODS] : FUNCTION_NEEDS[fn];
}

/** Ready, or why not: `reason` is short and safe for the answer; `detail` goes to our log only. */
export type Readiness = { ready: true } | { ready: false; reason: string; detail: string };

/** Answers whether the deployment is ready; cheap to call often. */
export type ReadinessCheck = () => Promise<Readiness>;

/** How long a good answer is reused: probes cost no API call within it, and a revoked credential or RBAC shows soon. */
export const READY_CACHE_MS = 10_000;
/** One check gives up after this; below the chart's readiness probe timeout (5 s), so the answer names why. */
export const READINESS_TIMEOUT_MS = 4_000;

/** The client's own `request` (its credential, transport, deadlines); `shareInFlight` on Node only (a Workers request must not await another's). */
type ReadinessCheckOptions = {
  request: KubeRequester;
  functions: readonly FunctionName[];
  /** REVIEW_REQUESTING_USER, which decides whether authorize reads pods. */
  requestingUser: RequestingUserMode;
  shareInFlight: boolean;
  monotonicNow?: (() => number) | undefined;
};

/** Builds the check: a good answer is kept for {@link READY_CACHE_MS}; a bad one is never kept. */
export function createReadinessCheck(options: ReadinessCheckOptions): ReadinessCheck {
  const now = options.monotonicNow ?? (() => performance.now());
  // Both functions share one GET_CREDSPECS object, so serving both asks it once.
  const needs = [...new Set(options.functions.flatMap((fn) => functionNeeds(fn, options.requestingUser)))];
  let readyUntil = -Infinity;
  let running: Promise<Readiness> | undefined;

  const check = async (): Promise<Readiness> => {
    const signal = AbortSignal.timeout(READINESS_TIMEOUT_MS);
    const answers = await Promise.all(needs.map((need) => reviewNeed(options.request, need, signal)));
    const missing = answers.find((answer) => !answer.ready) ?? { ready: true };
    if (missing.ready) readyUntil = now() + READY_CACHE_MS;
    return missing;
  };

  return () => {
    if (now() < readyUntil) return Promise.resolve({ ready: true });
    if (!options.shareInFlight) return check();
    running ??= check().finally(() => (running = undefined));
    return running;
  };
}

/** One SelfSubjectAccessReview for `need`, as a readiness answer. @throws only what is not an AdmissionError (a bug). */
async function reviewNeed(request: KubeRequester, resourceAttributes: Need, signal: AbortSignal): Promise<Readiness> {
  const { verb, resource, group } = resourceAttributes;
  // As kubectl names it: the core group ("") has no suffix.
  const permission = `${verb} ${resource}${group === "" ? "" : `.${group}`}`;
  const what = `checking readiness: may this function ${permission}`;
  const notReady = (reason: string, detail: string): Readiness => ({ ready: false, reason, detail });
  try {
    const answer = await request({
      method: "POST",
      path: "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
      resource: "selfsubjectaccessreviews",
      body: { apiVersion: "authorization.k8s.io/v1", kind: "SelfSubjectAccessReview", spec: { resourceAttributes } },
      what,
      signal,
    });
    const detail = `${what}: API server answered ${answer.status}`;
    if (answer.status === 401) return notReady("the API server refused our credential", detail);
    // Every authenticated user may create a SelfSubjectAccessReview: a 403 means the API server took us for anonymous.
    if (answer.status === 403) return notReady("the API server did not authenticate this function", detail);
    if (answer.status !== 201 && answer.status !== 200)
      return notReady(`the API server answered ${answer.status}`, detail);
    const verdict = readAccessVerdict(answer.body);
    if (verdict === undefined) return notReady("the API server's answer has no status.allowed", detail);
    return verdict.allowed
      ? { ready: true }
      : notReady(`this function's identity lacks RBAC: ${permission}`, `${what}: not allowed`);
  } catch (error) {
    // The message says what failed and why (plugin stderr, token file, ECONNREFUSED), as a review's log line does.
    if (error instanceof AdmissionError) {
      return notReady(
        error.code === "ERR_CREDENTIALS" ? "no credential for the API server" : "API server unreachable",
        error.message,
      );
    }
    throw error;
  }
}
