/**
 * The narrow seam between the handlers and the Kubernetes API: the two facts the GMSA rules need
 * (after windows-gmsa's `kubeClientInterface`). Unit tests pass an in-memory fake; the real client
 * lives beside this file.
 */
import type { CallTally } from "../observer.ts";
import type { AccessAnswer, Subject } from "../policy/facts.ts";

/** Per-call options: every call honours the review's deadline. */
export interface CallOptions {
  signal: AbortSignal;
  /** What the review's calls did, for its log line. */
  tally?: CallTally | undefined;
}

/** May `serviceAccount` (never empty: "" is already "default") in `namespace` `use` the GMSACredentialSpec? */
export type AccessQuery = Extract<Subject, { serviceAccount: string }> & { credSpecName: string };

/** May the requesting `user` `use` the GMSACredentialSpec `credSpecName` in `namespace`? */
export type UserAccessQuery = Extract<Subject, { user: unknown }> & { credSpecName: string };

/** The authorizer's answer. */
export type AccessDecision = AccessAnswer;

export interface GmsaClient {
  /**
   * The parsed `credspec` field of the cluster-scoped GMSACredentialSpec `name`.
   * @throws CredSpecNotFoundError when it does not exist, CredSpecWithoutContentsError when it has no `credspec`,
   *   KubeApiError / DeadlineExceededError / CredentialsError when the API server cannot answer.
   */
  getCredSpecContents(name: string, options: CallOptions): Promise<unknown>;
  /**
   * A LocalSubjectAccessReview for verb `use` on the credspec (docs/security.md, Access reviews).
   * @throws KubeApiError / DeadlineExceededError / CredentialsError when the API server cannot answer.
   */
  canUseCredSpec(query: AccessQuery, options: CallOptions): Promise<AccessDecision>;
  /** The same review for the requesting user (REVIEW_REQUESTING_USER): spec.user, uid, groups and extra verbatim. */
  canUserUseCredSpec(query: UserAccessQuery, options: CallOptions): Promise<AccessDecision>;
}
