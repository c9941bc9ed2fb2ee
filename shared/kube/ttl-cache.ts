/** A small bounded cache with a time-to-live: least recently used entries go first when it is full. */

/** Size and lifetime of a cache; `ttlMs` or `maxEntries` of 0 switches it off. */
export interface TtlCacheOptions {
  maxEntries: number;
  ttlMs: number;
  /** Clock in epoch ms. Default `Date.now`. */
  now?: () => number;
}

/** Hits and misses since start-up, and the current size. */
export interface TtlCacheStats {
  hits: number;
  misses: number;
  size: number;
}

export interface TtlCache<V> {
  /** The value, if present and younger than `ttlMs`. */
  get(key: string): V | undefined;
  set(key: string, value: V): void;
  stats(): TtlCacheStats;
}

/**
 * Creates a cache; a switched-off one stores nothing and counts every `get` as a miss.
 * @throws TypeError for negative or non-integer sizes and lifetimes.
 */
export function createTtlCache<V>(options: TtlCacheOptions): TtlCache<V> {
  const { maxEntries, ttlMs } = options;
  if (!Number.isInteger(maxEntries) || maxEntries < 0) throw new TypeError("maxEntries must be a non-negative integer");
  if (!Number.isFinite(ttlMs) || ttlMs < 0) throw new TypeError("ttlMs must be a non-negative number");
  const now = options.now ?? Date.now;
  const enabled = maxEntries > 0 && ttlMs > 0;
  // A Map iterates in insertion order; re-inserting on read makes its first key the least recently used.
  const entries = new Map<string, { value: V; expiresAt: number }>();
  let hits = 0;
  let misses = 0;

  /** The live value of `key` (a hit, and now the most recently used), or undefined with an expired entry dropped. */
  function live(key: string): V | undefined {
    const entry = entries.get(key);
    if (entry === undefined || entry.expiresAt <= now()) {
      if (entry !== undefined) entries.delete(key);
      return undefined;
    }
    entries.delete(key);
    entries.set(key, entry);
    hits++;
    return entry.value;
  }

  return {
    get(key) {
      const value = live(key);
      if (value === undefined) misses++;
      return value;
    },
    set(key, value) {
      if (!enabled) return;
      entries.delete(key);
      entries.set(key, { value, expiresAt: now() + ttlMs });
      while (entries.size > maxEntries) {
        const oldest = entries.keys().next();
        if (oldest.done === true) break;
        entries.delete(oldest.value);
      }
    },
    stats: () => ({ hits, misses, size: entries.size }),
  };
}
