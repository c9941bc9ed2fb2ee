import type { AdmissionRequest } from "../admission/review.ts";
import type { AdmissionError } from "../errors.ts";

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
