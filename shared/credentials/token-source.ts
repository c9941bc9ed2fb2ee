/**
 * The one credential shape every source hands to the Kubernetes client (docs/configuration.md, Talking to the
 * Kubernetes API): a bearer token or a client certificate and key, as in the ExecCredential `status`, plus its
 * optional expiry.
 */
import type { CallTally } from "../observer.ts";

/**
 * A bearer token for the `Authorization` header, or a PEM client certificate and key presented during the TLS
 * handshake. `expirationTimestamp` is RFC 3339; absent means "valid until the API server answers 401".
 */
export type Credential = ({ token: string } | { clientCertificateData: string; clientKeyData: string }) & { expirationTimestamp?: string };

/** Per-call options of {@link TokenSource.getCredential}. */
export interface GetCredentialOptions {
  /** The caller's deadline: waiting stops when it aborts, with a DeadlineExceededError. */
  signal?: AbortSignal;
  /** The review's tally: `tokenRefresh` is set when this call waited for a refresh. */
  tally?: Pick<CallTally, "tokenRefresh"> | undefined;
}

/** Where the client gets its credential from; implementations cache and refresh as they see fit. */
export interface TokenSource {
  /**
   * A credential that is not about to expire.
   * @throws CredentialsError when none can be had, DeadlineExceededError when `signal` aborts first.
   */
  getCredential(options?: GetCredentialOptions): Promise<Credential>;
  /**
   * The API server answered 401 to `credential`: forget it if it is still the cached one, so the next
   * {@link getCredential} fetches a fresh one. Calling it for an already replaced credential does nothing.
   */
  invalidate(credential: Credential): void;
  /**
   * The API server accepted `credential` (a 2xx answer). Sources that back off after repeated refusals use it to
   * tell a credential that worked and was then revoked from a source that keeps issuing bad ones.
   */
  accepted?(credential: Credential): void;
}

/** True for a bearer-token credential. */
export function isTokenCredential(credential: Credential): credential is Credential & { token: string } {
  return "token" in credential;
}

/** A source that always returns the same credential (kubeconfig `token` or client certificate files). */
export function createStaticTokenSource(credential: Credential): TokenSource {
  const frozen = Object.freeze({ ...credential });
  return {
    getCredential: () => Promise.resolve(frozen),
    invalidate: () => undefined,
  };
}
