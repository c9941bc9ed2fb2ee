import type { Config } from "../shared/config/index.ts";
import type { GmsaClient } from "../shared/kube/gmsa-client.ts";
import type { CallTally } from "../shared/observer.ts";

/** The switches of the GMSA rules (RANDOM_HOSTNAME, REVIEW_REQUESTING_USER, ENFORCEMENT), from the configuration. */
export type ReviewSettings = Pick<Config, "randomHostname" | "requestingUser" | "enforcement">;

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
