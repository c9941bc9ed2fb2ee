/** The one credential shape every source hands to the Kubernetes client (docs/configuration.md, Talking to the Kubernetes API). */
import type { CallTally } from "../observer.ts";

/** A bearer token or a PEM client certificate and key, as in the ExecCredential `status`; no expiry: valid until a 401. */
export type Credential = ({ token: string } | { clientCertificateData: string; clientKeyData: string }) & {
  expirationTimestamp?: string;
};

/** Where the client gets its credential from; implementations cache and refresh as they see fit. */
export interface TokenSource {
  /** A credential not about to expire (`tally.tokenRefresh` set if it waited for one). @throws AdmissionError ERR_CREDENTIALS, or ERR_DEADLINE_EXCEEDED when `signal` aborts first. */
  getCredential(options?: {
    signal?: AbortSignal;
    tally?: Pick<CallTally, "tokenRefresh"> | undefined;
  }): Promise<Credential>;
  /** The API server answered 401 to `credential`: forget it if it is still the cached one (else nothing). */
  invalidate(credential: Credential): void;
  /** A 2xx answer to `credential`: tells one that worked and was then revoked from a source issuing bad ones. */
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
