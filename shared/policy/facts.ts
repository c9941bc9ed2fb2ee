/**
 * What the GMSA rules decide from: the switches, the review as the policy reads it from the admission request
 * ({@link readReview}), what a plan asks to load and what was loaded. Facts in, decision out: nothing here does I/O.
 */
import { readRequestPod, type AdmissionRequest, type Pod } from "../admission/review.ts";
import { asAdmissionError, type AdmissionError } from "../errors.ts";

/** REVIEW_REQUESTING_USER: whose `use` authorize reviews besides the service account's (docs/configuration.md). */
export const REQUESTING_USER_MODES = ["off", "ephemeral", "always"] as const;
export type RequestingUserMode = (typeof REQUESTING_USER_MODES)[number];
/** ENFORCEMENT: authorize denies (`deny`) or allows with a warning and an audit annotation (`warn`, shadow mode). */
export const ENFORCEMENT_MODES = ["deny", "warn"] as const;
export type EnforcementMode = (typeof ENFORCEMENT_MODES)[number];

/** The switches of the GMSA rules, from the configuration. */
export interface PolicySettings {
  /** Set a random NetBIOS-safe hostname on GMSA pods without one (expand). */
  randomHostname: boolean;
  requestingUser: RequestingUserMode;
  enforcement: EnforcementMode;
}

/** A CREATE of a Pod in `namespace` (the request's, else the pod's, else "default") by `requester`, if named. */
export interface PodCreate {
  object: "pod";
  operation: "CREATE";
  namespace: string;
  pod: Pod;
  requester: Requester | undefined;
}
/** An UPDATE of a Pod or of a subresource (`ephemeralcontainers` for `kubectl debug`), with the pod before it. */
export type PodUpdate = Omit<PodCreate, "operation"> & {
  operation: "UPDATE";
  subResource: string | undefined;
  oldPod: Pod;
};
/** A CREATE or UPDATE of a Pod: what the GMSA rules judge. */
export type PodChange = PodCreate | PodUpdate;

/**
 * A CONNECT to pod `name` (`exec`, `attach`, `portforward`, `proxy`): the request's object is the options
 * (PodExecOptions), never the pod, so `pod` is the pod as authorize read it, when the policy asked for it.
 */
export interface PodConnect {
  object: "pod";
  operation: "CONNECT";
  subResource: string | undefined;
  namespace: string;
  name: string;
  requester: Requester | undefined;
  pod?: Fact<Pod>;
}

/** What a review is about: a pod change, a DELETE or CONNECT, any kind but a core Pod, or an unreadable pod (400). */
export type ReviewFacts =
  | PodChange
  | { object: "pod"; operation: "DELETE" }
  | PodConnect
  | { object: "other"; group: string; version: string; kind: string }
  | { object: "invalid"; error: AdmissionError };

/** What the policy reads from an admission request; a review whose pod cannot be read comes back `invalid` (400). */
export function readReview(request: AdmissionRequest): ReviewFacts {
  const { operation, userInfo, resource } = request;
  const requester =
    userInfo?.username === undefined || userInfo.username === ""
      ? undefined
      : { ...userInfo, username: userInfo.username };
  // A CONNECT's kind and object are its options (PodExecOptions, PodAttachOptions): the request names the pod.
  const connect = {
    object: "pod",
    operation: "CONNECT",
    subResource: request.subResource,
    namespace: request.namespace ?? "",
    name: request.name ?? "",
    requester,
  } as const;
  if (operation === "CONNECT" && resource?.group === "" && resource.resource === "pods") return connect;
  const { group, version, kind } = request.kind;
  if (group !== "" || kind !== "Pod") return { object: "other", group, version, kind };
  if (operation === "DELETE") return { object: "pod", operation };
  if (operation === "CONNECT") return connect;
  try {
    const pod = readRequestPod(request, "object");
    const common = {
      object: "pod",
      namespace: request.namespace ?? pod.metadata?.namespace ?? "default",
      pod,
      requester,
    } as const;
    if (operation === "CREATE") return { ...common, operation };
    return { ...common, operation, subResource: request.subResource, oldPod: readRequestPod(request, "oldObject") };
  } catch (error) {
    return { object: "invalid", error: asAdmissionError(error) };
  }
}

/** One fact loaded for a review: its value, or the error that kept it from us. */
export type Fact<T> = { ok: true; value: T } | { ok: false; error: AdmissionError };

/** An authorizer's answer to "may this subject `use` this credspec?"; `reason` (may be empty) is for the denial. */
export interface AccessAnswer {
  allowed: boolean;
  reason: string;
}

/** Access answers by credspec name, for one subject. */
export type AccessFacts = ReadonlyMap<string, Fact<AccessAnswer>>;

/** The user who sent the admission request: its `userInfo`, as the API server authenticated them. */
export type Requester = NonNullable<AdmissionRequest["userInfo"]> & { username: string };

/** Whose `use` of a credspec is reviewed: the pod's service account ("" already made "default") or the requester. */
export type Subject = { namespace: string; serviceAccount: string } | { namespace: string; user: Requester };

/** What a decision needs loaded: each credspec once, each (subject, credspec) once, and `randomBytes` (0 for none). */
export interface LoadPlan {
  credspecs: ReadonlySet<string>;
  access: readonly { subject: Subject; names: ReadonlySet<string> }[];
  randomBytes: number;
}

/** What was loaded for a {@link LoadPlan}: every credspec it names (its `credspec` field), `access[i]` for `plan.access[i]`. */
export interface LoadedFacts {
  credspecs: ReadonlyMap<string, Fact<unknown>>;
  access: readonly AccessFacts[];
  randomBytes: Uint8Array;
}
