import type { AdmissionError } from "../errors.ts";

/** One fact loaded for a review: its value, or the error that kept it from us. */
export type Fact<T> = { ok: true; value: T } | { ok: false; error: AdmissionError };

/** Each named credspec's `credspec` field; every name the plan asked for is present. */
export type CredSpecFacts = ReadonlyMap<string, Fact<unknown>>;

/** Access decisions by credspec name, for the pod's one service account. */
export type AccessFacts = ReadonlyMap<string, Fact<{ allowed: boolean; reason: string }>>;

/**
 * Re-issues a fact-loading error for the places that named the credspec, keeping its class (so code and
 * status stay the I/O layer's) and prefixing where it matters.
 */
export function errorAtPlaces(error: AdmissionError, labels: string[], credSpecName: string): AdmissionError {
  const place = labels.join(", ");
  return error.withContext(place, { place, credSpecName });
}
