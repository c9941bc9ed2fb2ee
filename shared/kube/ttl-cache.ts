/**
 * A small bounded cache with a time-to-live: least recently used entries go first when it is full, by count or, when
 * entries are given a size, by bytes.
 */

/** Size and lifetime of a cache; `ttlMs` or `maxEntries` of 0 switches it off. */
export interface TtlCacheOptions {
  maxEntries: number;
  ttlMs: number;
  /** Most bytes held in all, counting the sizes given to `set`. Default: no bound. */
  maxBytes?: number;
  /** A value bigger than this is never stored. Default: no bound. */
  maxEntryBytes?: number;
  /**
   * Monotonic clock in ms. Default `performance.now()`: a wall clock stepped back (NTP, a VM resumed) would keep
   * entries past their TTL, and cached "allowed" answers with them.
   */
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
  /** Stores `value`, `bytes` large (0 when the cache is bounded by count only); a value too big is not kept. */
  set(key: string, value: V, bytes?: number): void;
  stats(): TtlCacheStats;
}

function checkBound(name: string, value: number | undefined): void {
  if (value !== undefined && (!Number.isInteger(value) || value < 0)) throw new TypeError(`${name} must be a non-negative integer`);
}

/**
 * Creates a cache; a switched-off one stores nothing and counts every `get` as a miss.
 * @throws TypeError for negative or non-integer sizes and lifetimes.
 */
export function createTtlCache<V>(options: TtlCacheOptions): TtlCache<V> {
  const { maxEntries, ttlMs } = options;
  checkBound("maxEntries", maxEntries);
  checkBound("maxBytes", options.maxBytes);
  checkBound("maxEntryBytes", options.maxEntryBytes);
  if (!Number.isFinite(ttlMs) || ttlMs < 0) throw new TypeError("ttlMs must be a non-negative number");
  const now = options.now ?? (() => performance.now());
  const maxBytes = options.maxBytes ?? Number.POSITIVE_INFINITY;
  const maxEntryBytes = Math.min(options.maxEntryBytes ?? Number.POSITIVE_INFINITY, maxBytes);
  const enabled = maxEntries > 0 && ttlMs > 0;
  // A Map iterates in insertion order; re-inserting on read makes its first key the least recently used.
  const entries = new Map<string, { value: V; expiresAt: number; bytes: number }>();
  let bytesHeld = 0;
  let hits = 0;
  let misses = 0;

  function drop(key: string): void {
    const entry = entries.get(key);
    if (entry === undefined) return;
    bytesHeld -= entry.bytes;
    entries.delete(key);
  }

  return {
    get(key) {
      const entry = entries.get(key);
      if (entry === undefined || entry.expiresAt <= now()) {
        drop(key);
        misses++;
        return undefined;
      }
      entries.delete(key);
      entries.set(key, entry);
      hits++;
      return entry.value;
    },
    set(key, value, bytes = 0) {
      drop(key);
      if (!enabled || bytes > maxEntryBytes) return;
      entries.set(key, { value, expiresAt: now() + ttlMs, bytes });
      bytesHeld += bytes;
      while (entries.size > maxEntries || bytesHeld > maxBytes) {
        const oldest = entries.keys().next();
        if (oldest.done === true) break;
        drop(oldest.value);
      }
    },
    stats: () => ({ hits, misses, size: entries.size }),
  };
}
