/** Size and lifetime of the client's caches, and their defaults (tabled and reasoned in README.md). */

/** Size and lifetime of one cache; `false`, or 0 for either number, switches it off. */
export interface CacheSettings {
  ttlMs: number;
  maxEntries: number;
}

/** Credspec contents: 30 s, 1000 entries. */
export const DEFAULT_CREDSPEC_CACHE: CacheSettings = Object.freeze({ ttlMs: 30_000, maxEntries: 1_000 });

/** Allowed access reviews: 10 s, 1000 entries. */
export const DEFAULT_ACCESS_CACHE: CacheSettings = Object.freeze({ ttlMs: 10_000, maxEntries: 1_000 });
