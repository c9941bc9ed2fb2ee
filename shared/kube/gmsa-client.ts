/**
 * The narrow seam between the handlers and the Kubernetes API: the two facts the GMSA rules need
 * (after windows-gmsa's `kubeClientInterface`). Unit tests pass an in-memory fake; the real client
 * lives beside this file.
 */

/** Per-call options: every call honours the review's deadline. */
export interface CallOptions {
  signal: AbortSignal;
}

/** May `serviceAccount` in `namespace` `use` the GMSACredentialSpec `credSpecName`? */
export interface AccessQuery {
  namespace: string;
  /** Never empty: the caller already turned "" into "default". */
  serviceAccount: string;
  credSpecName: string;
}

export interface AccessDecision {
  allowed: boolean;
  /** The authorizer's reason or evaluation error, for the denial message; may be empty. */
  reason: string;
}

export interface GmsaClient {
  /**
   * The parsed `credspec` field of the cluster-scoped GMSACredentialSpec `name`.
   * @throws CredSpecNotFoundError when it does not exist, CredSpecWithoutContentsError when it has no `credspec`,
   *   KubeApiError / DeadlineExceededError / CredentialsError when the API server cannot answer.
   */
  getCredSpecContents(name: string, options: CallOptions): Promise<unknown>;
  /**
   * A LocalSubjectAccessReview for verb `use` on the credspec (DESIGN.md section 5).
   * @throws KubeApiError / DeadlineExceededError / CredentialsError when the API server cannot answer.
   */
  canUseCredSpec(query: AccessQuery, options: CallOptions): Promise<AccessDecision>;
}
