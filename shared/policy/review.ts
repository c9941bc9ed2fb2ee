import type { Operation as PatchOperation } from "fast-json-patch";
import type { AdmissionError } from "../errors.ts";
import type { Fact, Requester } from "./facts.ts";
import type { Pod } from "./pod.ts";

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
export type PodUpdate = Omit<PodCreate, "operation"> & { operation: "UPDATE"; subResource: string | undefined; oldPod: Pod };
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

/** The warning for a review about anything but a Pod: allowed unchanged. */
export function otherKindWarning({ group, version, kind }: { group: string; version: string; kind: string }): string {
  return `gmsa-webhooks only reviews core/v1 Pods; ${group === "" ? "core" : group}/${version} ${kind} was allowed unchanged (check the webhook's rules)`;
}

/** Allowed (expand: with its patch) or denied with every refusal; the API server prefixes the bare audit keys. */
export type Decision =
  | { allowed: true; patch?: PatchOperation[]; warnings?: string[]; auditAnnotations?: Record<string, string> }
  | { allowed: false; errors: AdmissionError[]; warnings?: string[]; auditAnnotations?: Record<string, string> };

/** Denied with `errors` when any, each sentence once (two subjects' reviews can fail alike), else allowed; with `warnings`. */
export function decide(errors: AdmissionError[], warnings: string[] = []): Decision {
  const warned = warnings.length === 0 ? {} : { warnings };
  const seen = new Set<string>();
  const distinct = errors.filter((error) => !seen.has(error.message) && seen.add(error.message));
  return distinct.length === 0 ? { allowed: true, ...warned } : { allowed: false, errors: distinct, ...warned };
}
