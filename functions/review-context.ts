import type { EnforcementMode, RequestingUserMode } from "../shared/config/index.ts";
import type { GmsaClient } from "../shared/kube/gmsa-client.ts";
import type { CallTally } from "../shared/observer.ts";

/** Limits and switches of the GMSA rules, from the configuration. */
export interface ReviewSettings {
  /** Set a random NetBIOS-safe hostname on GMSA pods without one (RANDOM_HOSTNAME). */
  randomHostname: boolean;
  /** At most this many distinct credspecs in one pod (MAX_CREDSPECS_PER_POD). */
  maxCredSpecNames: number;
  /** Whose `use` authorize reviews besides the service account's (REVIEW_REQUESTING_USER). */
  requestingUser: RequestingUserMode;
  /** Authorize denies, or allows with a warning and an audit annotation (ENFORCEMENT). */
  enforcement: EnforcementMode;
}

/** What a review handler gets besides the review: facts, randomness and the deadline. */
export interface ReviewContext {
  gmsa: GmsaClient;
  settings: ReviewSettings;
  randomBytes: (length: number) => Uint8Array;
  /** Aborts when the review's time is up. */
  signal: AbortSignal;
  /** What this review's API calls did, for its log line (absent in tests that do not look). */
  tally?: CallTally;
}
