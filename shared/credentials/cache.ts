/**
 * The cache behind every refreshing credential source: reuse until expiry minus a skew (else until a 401), single-flight
 * refreshes where sharing is safe, backoff after failures and after fresh credentials refused twice in a row.
 */
import { AdmissionError } from "../errors.ts";
import { awaitWithin } from "../deadline.ts";
import type { RefreshObserver } from "../observer.ts";
import type { Credential, TokenSource } from "./token-source.ts";

/** Options of {@link createCredentialCache}. */
export interface CredentialCacheOptions {
  /** Fetches a fresh credential at `requestedAt` (epoch ms of `now`); given the caller's signal only when `shareInFlight` is false (a shared load ends on its own). */
  load: (signal: AbortSignal | undefined, requestedAt: number) => Promise<Credential>;
  /** Names the source in error messages, e.g. `exec plugin "aws"`. Never a secret. */
  describe: string;
  /**
   * True on Node: concurrent callers await one load. False on Workers, where a request must not await another
   * request's promise (panva/jose#355, #509): only settled credentials are shared. Set by the adapter, never sniffed.
   */
  shareInFlight: boolean;
  /** Epoch ms. Default `Date.now`, a wall clock as `expirationTimestamp` is: one stepped back only delays a refresh to the 401. */
  now?: (() => number) | undefined;
  /**
   * Monotonic ms for the backoff and the fresh-refusal window, which measure intervals: a wall clock stepped back
   * must not hold credentials back for as long as the step. Default `performance.now`.
   */
  monotonic?: (() => number) | undefined;
  /** Told how each refresh ended (metrics); a caller that gave up on its own load (Workers) is not a refresh. */
  onRefresh?: RefreshObserver | undefined;
}

/** What a refreshing source passes through to its cache: decided by the runtime (Node, Workers, the CLI). */
export type CacheSharingOptions = Pick<CredentialCacheOptions, "shareInFlight" | "now" | "monotonic" | "onRefresh">;

/** A credential refused (401) this soon after it was issued counts as a bad one, not a revoked one. */
const FRESH_REJECTION_MS = 60_000;

/** The pause after the `count`th failure in a row: 1 s, doubled each time, at most 30 s. */
const backoffMs = (count: number): number => Math.min(30_000, 1_000 * 2 ** (count - 1));

/** When a credential obtained at `obtainedAt` must be replaced (epoch ms; Infinity without expiry): a tenth of its lifetime, 5 s to 60 s, at most half, before expiry. */
function computeRefreshAt(expirationTimestamp: string | undefined, obtainedAt: number): number {
  if (expirationTimestamp === undefined) return Number.POSITIVE_INFINITY;
  const expiresAt = Date.parse(expirationTimestamp);
  const lifetime = expiresAt - obtainedAt;
  if (!Number.isFinite(expiresAt) || lifetime <= 0) return obtainedAt;
  const skew = Math.min(60_000, Math.max(5_000, lifetime / 10));
  return expiresAt - Math.min(skew, lifetime / 2);
}

/** Wraps `load` into a {@link TokenSource}. */
export function createCredentialCache(options: CredentialCacheOptions): TokenSource {
  const { load, describe, shareInFlight } = options;
  const now = options.now ?? Date.now;
  const monotonic = options.monotonic ?? ((): number => performance.now());

  // refreshAt is wall-clock (from expirationTimestamp); obtainedAt and retryAt are monotonic.
  let cached: { credential: Credential; refreshAt: number; obtainedAt: number } | undefined;
  let inFlight: Promise<Credential> | undefined;
  let failure: { count: number; retryAt: number; error: AdmissionError } | undefined;
  // Fresh credentials refused in a row: a source that keeps issuing credentials the API server rejects is as
  // broken as one that fails, and must not be run once per request.
  let freshRejections = 0;

  // A credential failure like any other (issue 14, section 3): the pod author gets the generic 500, the log the source.
  const deadlineError = (): Error =>
    new AdmissionError(`${describe}: no credential before the deadline`, {
      code: "ERR_CREDENTIALS",
      cause: new AdmissionError("the review's deadline passed", { code: "ERR_DEADLINE_EXCEEDED" }),
    });

  async function refresh(signal: AbortSignal | undefined): Promise<Credential> {
    try {
      const credential = await load(signal, now());
      const wallNow = now();
      const refreshAt = computeRefreshAt(credential.expirationTimestamp, wallNow);
      if (refreshAt <= wallNow) {
        throw new AdmissionError(`${describe} returned a credential that has already expired`, {
          code: "ERR_CREDENTIALS",
        });
      }
      cached = { credential, refreshAt, obtainedAt: monotonic() };
      failure = undefined;
      options.onRefresh?.("success");
      return credential;
    } catch (error) {
      // The caller gave up (Workers: its own load): not the source's fault, so no backoff.
      if (signal?.aborted === true) throw deadlineError();
      const count = (failure?.count ?? 0) + 1;
      const wrapped =
        error instanceof AdmissionError
          ? error
          : new AdmissionError(`${describe} failed`, { code: "ERR_CREDENTIALS", cause: error });
      failure = { count, retryAt: monotonic() + backoffMs(count), error: wrapped };
      options.onRefresh?.("failure");
      throw wrapped;
    }
  }

  return {
    async getCredential({ signal, tally } = {}): Promise<Credential> {
      if (cached !== undefined && now() < cached.refreshAt) return cached.credential;
      const time = monotonic();
      if (failure !== undefined && time < failure.retryAt) {
        const seconds = Math.ceil((failure.retryAt - time) / 1000);
        throw new AdmissionError(`${failure.error.message} (not retried for another ${seconds}s)`, {
          code: "ERR_CREDENTIALS",
          cause: failure.error,
        });
      }
      const pending = shareInFlight
        ? (inFlight ??= refresh(undefined).finally(() => {
            inFlight = undefined;
          }))
        : refresh(signal);
      const waited = awaitWithin(pending, signal, deadlineError);
      if (tally !== undefined) {
        // Registered before the caller's own handlers: the tally is set by the time the caller resumes.
        void waited.then(
          () => void (tally.tokenRefresh = "success"),
          () => void (tally.tokenRefresh = "failure"),
        );
      }
      return waited;
    },
    invalidate(credential: Credential): void {
      if (cached?.credential !== credential) return;
      const time = monotonic();
      freshRejections = time - cached.obtainedAt < FRESH_REJECTION_MS ? freshRejections + 1 : 1;
      cached = undefined;
      // The first refusal gets an immediate refresh (the request's one retry); repeated ones back off.
      if (freshRejections >= 2) {
        const error = new AdmissionError(
          `${describe} issued ${freshRejections} credentials in a row that the API server refused (401)`,
          { code: "ERR_CREDENTIALS" },
        );
        failure = { count: freshRejections - 1, retryAt: time + backoffMs(freshRejections - 1), error };
      }
    },
    accepted(credential: Credential): void {
      // The refusals before it are no longer "in a row".
      if (cached?.credential === credential) freshRejections = 0;
    },
  };
}
