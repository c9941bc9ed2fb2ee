/**
 * The real {@link GmsaClient}: fetch-based, with optional short-lived caches of credspec contents and of
 * allowed access reviews (never of denials or errors; see README.md, Caches).
 */
import type { TokenSource } from "../credentials/token-source.ts";
import { reviewCredSpecAccess } from "./access-reviews.ts";
import { DEFAULT_ACCESS_CACHE, DEFAULT_CREDSPEC_CACHE, type CacheSettings } from "./cache-settings.ts";
import { readCredSpecContents } from "./credspecs.ts";
import type { AccessDecision, GmsaClient } from "./gmsa-client.ts";
import { createKubeRequester } from "./request.ts";
import type { KubeFetch } from "./transport.ts";
import { createTtlCache, type TtlCacheStats } from "./ttl-cache.ts";

/** Options of {@link createKubeGmsaClient}. */
export interface KubeGmsaClientOptions {
  /** The kubeconfig cluster `server`. */
  server: string;
  fetch: KubeFetch;
  /** Absent: anonymous. */
  tokenSource?: TokenSource;
  /** Upper bound per API call on top of the caller's signal. Default 5000. */
  requestTimeoutMs?: number;
  /** Pause before retrying a failed GET when no Retry-After came. Default 200. */
  retryDelayMs?: number;
  disableCompression?: boolean;
  /** Default `{ ttlMs: 30000, maxEntries: 1000 }`. */
  credSpecCache?: CacheSettings | false;
  /** Allowed decisions only. Default `{ ttlMs: 10000, maxEntries: 1000 }`. */
  accessCache?: CacheSettings | false;
  /** Clock in epoch ms for caches and Retry-After. Default `Date.now`. */
  now?: () => number;
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
  const request = createKubeRequester({
    server: options.server,
    fetch: options.fetch,
    tokenSource: options.tokenSource,
    requestTimeoutMs: options.requestTimeoutMs,
    retryDelayMs: options.retryDelayMs,
    disableCompression: options.disableCompression,
    now,
  });
  const off: CacheSettings = { ttlMs: 0, maxEntries: 0 };
  // Contents are kept as JSON text: each caller parses its own copy, so no handler can change what the next
  // review sees (JSON.parse is three times faster than structuredClone here: test/bench/RESULTS.md).
  const credSpecs = createTtlCache<string>({ ...(options.credSpecCache === false ? off : (options.credSpecCache ?? DEFAULT_CREDSPEC_CACHE)), now });
  const access = createTtlCache<AccessDecision>({ ...(options.accessCache === false ? off : (options.accessCache ?? DEFAULT_ACCESS_CACHE)), now });

  return {
    async getCredSpecContents(name, { signal }) {
      const cached = credSpecs.get(name);
      if (cached !== undefined) return JSON.parse(cached) as unknown;
      const contents = await readCredSpecContents(request, name, signal);
      credSpecs.set(name, JSON.stringify(contents));
      return contents;
    },
    async canUseCredSpec(query, { signal }) {
      // Names cannot contain "/", so the key is unambiguous.
      const key = `${query.namespace}/${query.serviceAccount}/${query.credSpecName}`;
      const cached = access.get(key);
      if (cached !== undefined) return { ...cached };
      const decision = await reviewCredSpecAccess(request, query, signal);
      if (decision.allowed) access.set(key, decision);
      return decision;
    },
    stats: () => ({ credSpecCache: credSpecs.stats(), accessCache: access.stats() }),
  };
}
