/**
 * The real {@link GmsaClient}: fetch-based, with optional short-lived caches of credspec contents and of
 * allowed access reviews (never of denials or errors; see README.md, Caches).
 */
import { reviewCredSpecAccess, reviewUserCredSpecAccess } from "./access-reviews.ts";
import { DEFAULT_ACCESS_CACHE, DEFAULT_CREDSPEC_CACHE, type CacheSettings } from "../config/index.ts";
import { readCredSpecContents } from "./credspecs.ts";
import type { AccessDecision, GmsaClient } from "./gmsa-client.ts";
import { createKubeRequester, type KubeRequesterOptions } from "./request.ts";
import { createTtlCache, type TtlCache, type TtlCacheStats } from "./ttl-cache.ts";
import type { CacheName, CallTally, KubeObserver } from "../observer.ts";

/** Options of {@link createKubeGmsaClient}: the requester's, plus the caches. */
export interface KubeGmsaClientOptions extends KubeRequesterOptions {
  /** Default `{ ttlMs: 30000, maxEntries: 1000 }`. */
  credSpecCache?: CacheSettings | false;
  /** Allowed decisions only. Default `{ ttlMs: 10000, maxEntries: 1000 }`. */
  accessCache?: CacheSettings | false;
  /** Told of every API call attempt and cache lookup (metrics). */
  observer?: KubeObserver | undefined;
}

/** Cache counters of a {@link KubeGmsaClient}. */
export interface KubeClientStats {
  credSpecCache: TtlCacheStats;
  accessCache: TtlCacheStats;
}

/** A {@link GmsaClient} with cache counters. */
export interface KubeGmsaClient extends GmsaClient {
  stats(): KubeClientStats;
}

/** Builds the client. @throws TypeError for invalid cache settings. */
export function createKubeGmsaClient(options: KubeGmsaClientOptions): KubeGmsaClient {
  const now = options.now ?? Date.now;
  const request = createKubeRequester({ ...options, now });
  const off: CacheSettings = { ttlMs: 0, maxEntries: 0 };
  // Contents are kept as JSON text: each caller parses its own copy, so no handler can change what the next
  // review sees (JSON.parse is three times faster than structuredClone here: test/bench/RESULTS.md).
  const credSpecs = createTtlCache<string>({ ...(options.credSpecCache === false ? off : (options.credSpecCache ?? DEFAULT_CREDSPEC_CACHE)), now });
  const access = createTtlCache<AccessDecision>({ ...(options.accessCache === false ? off : (options.accessCache ?? DEFAULT_ACCESS_CACHE)), now });

  const { observer } = options;
  /** A cache lookup, counted for metrics and the review's tally. */
  function lookUp<V>(cache: TtlCache<V>, which: CacheName, key: string, tally: CallTally | undefined): V | undefined {
    const value = cache.get(key);
    observer?.cacheRequest(which, value !== undefined);
    if (tally !== undefined) {
      if (value === undefined) tally.cacheMisses++;
      else tally.cacheHits++;
    }
    return value;
  }

  return {
    async getCredSpecContents(name, call) {
      const cached = lookUp(credSpecs, "credspec", name, call.tally);
      if (cached !== undefined) return JSON.parse(cached) as unknown;
      const contents = await readCredSpecContents(request, name, call);
      credSpecs.set(name, JSON.stringify(contents));
      return contents;
    },
    async canUseCredSpec(query, call) {
      // Names cannot contain "/", so the key is unambiguous.
      const key = `${query.namespace}/${query.serviceAccount}/${query.credSpecName}`;
      const cached = lookUp(access, "access", key, call.tally);
      if (cached !== undefined) return { ...cached };
      const decision = await reviewCredSpecAccess(request, query, call);
      if (decision.allowed) access.set(key, decision);
      return decision;
    },
    // Never cached: a user's identity carries groups and extra (scopes, session ids) that change per login, so a
    // key would have to hold all of it, and a hit would be rare; a review per ephemeral container is cheap.
    canUserUseCredSpec: (query, call) => reviewUserCredSpecAccess(request, query, call),
    stats: () => ({ credSpecCache: credSpecs.stats(), accessCache: access.stats() }),
  };
}
