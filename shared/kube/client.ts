/**
 * The narrow seam between the handlers and the Kubernetes API, {@link GmsaClient}: the two facts the GMSA rules need
 * (after windows-gmsa's `kubeClientInterface`; unit tests pass an in-memory fake). And the real one: fetch-based,
 * with optional short-lived caches of credspec contents and of allowed access reviews (never of denials or errors;
 * docs/configuration.md, Caches and their staleness). On Node, concurrent misses of one key share one API call.
 * GMSACredentialSpecs are the CRD from kubernetes-sigs/windows-gmsa, `windows.k8s.io/v1`.
 */
import { LRUCache } from "lru-cache";
import { reviewCredSpecAccess } from "./access-reviews.ts";
import { createKubeRequester, errorFromAnswer, readStatus, type KubeRequester, type KubeRequesterOptions } from "./request.ts";
import type { CacheName, CallTally, KubeObserver } from "../observer.ts";
import type { AccessAnswer, Subject } from "../policy/facts.ts";
import { awaitWithin } from "../deadline.ts";
import { CREDSPEC_API_VERSION, CREDSPEC_RESOURCE } from "../credspec/resource.ts";
import { CredSpecNotFoundError, CredSpecWithoutContentsError, DeadlineExceededError, InvalidCredSpecNameError, KubeApiError } from "../errors.ts";
import { isDns1123Subdomain } from "../policy/names.ts";
import { MAX_CREDSPEC_CONTENTS_BYTES } from "../policy/expand.ts";

/** Per-call options: every call honours the review's deadline. */
export interface CallOptions {
  signal: AbortSignal;
  /** What the review's calls did, for its log line. */
  tally?: CallTally | undefined;
}

/** May `serviceAccount` (never empty: "" is already "default") in `namespace` `use` the GMSACredentialSpec? */
export type AccessQuery = Extract<Subject, { serviceAccount: string }> & { credSpecName: string };

/** May the requesting `user` `use` the GMSACredentialSpec `credSpecName` in `namespace`? */
export type UserAccessQuery = Extract<Subject, { user: unknown }> & { credSpecName: string };

export interface GmsaClient {
  /**
   * The parsed `credspec` field of the cluster-scoped GMSACredentialSpec `name`.
   * @throws CredSpecNotFoundError when it does not exist, CredSpecWithoutContentsError when it has no `credspec`,
   *   KubeApiError / DeadlineExceededError / CredentialsError when the API server cannot answer.
   */
  getCredSpecContents(name: string, options: CallOptions): Promise<unknown>;
  /**
   * A LocalSubjectAccessReview for verb `use` on the credspec (docs/security.md, Access reviews).
   * @throws KubeApiError / DeadlineExceededError / CredentialsError when the API server cannot answer.
   */
  canUseCredSpec(query: AccessQuery, options: CallOptions): Promise<AccessAnswer>;
  /** The same review for the requesting user (REVIEW_REQUESTING_USER): spec.user, uid, groups and extra verbatim. */
  canUserUseCredSpec(query: UserAccessQuery, options: CallOptions): Promise<AccessAnswer>;
}

/** How long credspec contents are reused when the configuration says nothing (CREDSPEC_CACHE_TTL_MS). */
export const DEFAULT_CREDSPEC_CACHE_TTL_MS = 30_000;
/** How long an allowed access review is reused when the configuration says nothing (ACCESS_CACHE_TTL_MS). */
export const DEFAULT_ACCESS_CACHE_TTL_MS = 10_000;
/** Entries per cache: only keeps a flood of distinct names from growing the heap, least recently used first. */
export const CACHE_MAX_ENTRIES = 1_000;
/** Bytes of credspec contents (compact JSON) held in all: thousands of typical 1 KiB ones, not a replica's memory. */
export const CREDSPEC_CACHE_MAX_BYTES = 4 * 1024 * 1024;

/** Options of {@link createKubeGmsaClient}: the requester's, plus the caches. */
export interface KubeGmsaClientOptions extends KubeRequesterOptions {
  /** How long credspec contents are reused; 0 switches the cache off. Default {@link DEFAULT_CREDSPEC_CACHE_TTL_MS}. */
  credSpecCacheTtlMs?: number | undefined;
  /** How long an allowed decision is reused (denials never are); 0 switches it off. Default {@link DEFAULT_ACCESS_CACHE_TTL_MS}. */
  accessCacheTtlMs?: number | undefined;
  /** Clock for the caches' TTLs. Default `performance.now()`: a wall clock stepped back would keep entries past their TTL. */
  monotonicNow?: (() => number) | undefined;
  /** Told of every API call attempt and cache lookup (metrics). */
  observer?: KubeObserver | undefined;
  /** True on Node: misses of one key in flight await one call. Never on Workers, where a request must not await another's promise. */
  shareInFlight?: boolean | undefined;
}

/** Hits and misses of each cache since start-up, and the entries it holds. */
export type KubeClientStats = Record<"credSpecCache" | "accessCache", { hits: number; misses: number; size: number }>;

/** A {@link GmsaClient} with cache counters, and its requester for the readiness check (./readiness.ts). */
export interface KubeGmsaClient extends GmsaClient {
  stats(): KubeClientStats;
  request: KubeRequester;
}

/** Builds the client. @throws TypeError for invalid cache settings. */
export function createKubeGmsaClient(options: KubeGmsaClientOptions): KubeGmsaClient {
  const request = createKubeRequester(options);
  // Kept parsed and deeply frozen, so no handler can change what the next review sees; never contents over the size a
  // pod may carry (the policy refuses them anyway), measured as the policy measures it: UTF-8 bytes of compact JSON.
  const credSpecs = createCache<NonNullable<unknown>>(options.credSpecCacheTtlMs ?? DEFAULT_CREDSPEC_CACHE_TTL_MS, options.monotonicNow, {
    maxSize: CREDSPEC_CACHE_MAX_BYTES,
    maxEntrySize: MAX_CREDSPEC_CONTENTS_BYTES,
    sizeCalculation: (value) => new TextEncoder().encode(JSON.stringify(value)).length,
  });
  const access = createCache<AccessAnswer>(options.accessCacheTtlMs ?? DEFAULT_ACCESS_CACHE_TTL_MS, options.monotonicNow);
  const counts = { credspec: { hits: 0, misses: 0 }, access: { hits: 0, misses: 0 } };
  const inFlight = { credspec: new Map<string, Promise<unknown>>(), access: new Map<string, Promise<unknown>>() };
  const statsOf = (cache: { size: number } | undefined, which: CacheName) => ({ ...counts[which], size: cache?.size ?? 0 });

  /**
   * The cached value, counted for metrics and the review's tally, else `load()`. On Node, reviews in flight that
   * miss the same key join one call (a cold start or an expiry under load would otherwise send one per review, and
   * keep a connection per call open afterwards). The call runs within the deadline of the review that started it,
   * so a call that hangs holds no later review past it, and that review keeps the call's own error; one that joins
   * also stops waiting at its own deadline.
   */
  async function cached<V extends NonNullable<unknown>>(which: CacheName, cache: LRUCache<string, V> | undefined, key: string, call: CallOptions, what: string, load: () => Promise<V>): Promise<V> {
    const value = cache?.get(key);
    const hit = value !== undefined;
    options.observer?.cacheRequest(which, hit);
    counts[which][hit ? "hits" : "misses"]++;
    if (call.tally !== undefined) call.tally[hit ? "cacheHits" : "cacheMisses"]++;
    if (hit) return value;
    if (options.shareInFlight !== true) return load();
    const calls = inFlight[which] as Map<string, Promise<V>>;
    const running = calls.get(key);
    if (running !== undefined) return awaitWithin(running, call.signal, () => new DeadlineExceededError(`${what}: no answer from the API server within the deadline`));
    const started = load().finally(() => calls.delete(key));
    calls.set(key, started);
    return started;
  }

  return {
    getCredSpecContents: (name, call) =>
      cached("credspec", credSpecs, name, call, `reading GMSACredentialSpec ${JSON.stringify(name)}`, async () => {
        const contents = deepFreeze(await readCredSpecContents(request, name, call));
        credSpecs?.set(name, contents);
        return contents;
      }),
    canUseCredSpec(query, call) {
      const { namespace, serviceAccount, credSpecName } = query;
      // Names cannot contain "/", so the key is unambiguous.
      const key = `${namespace}/${serviceAccount}/${credSpecName}`;
      const what = `reviewing whether service account "${namespace}/${serviceAccount}" may use GMSACredentialSpec "${credSpecName}"`;
      return cached("access", access, key, call, what, async () => {
        const decision = Object.freeze(await reviewCredSpecAccess(request, query, call));
        if (decision.allowed) access?.set(key, decision);
        return decision;
      });
    },
    // Never cached: a user's identity carries groups and extra (scopes, session ids) that change per login, so a
    // key would have to hold all of it, and a hit would be rare; a review per ephemeral container is cheap.
    canUserUseCredSpec: (query, call) => reviewCredSpecAccess(request, query, call),
    request,
    stats: () => ({ credSpecCache: statsOf(credSpecs, "credspec"), accessCache: statsOf(access, "access") }),
  };
}

/** The path of one cluster-scoped GMSACredentialSpec. */
export function credSpecPath(name: string): string {
  return `/apis/${CREDSPEC_API_VERSION}/${CREDSPEC_RESOURCE}/${encodeURIComponent(name)}`;
}

/**
 * GETs the GMSACredentialSpec `name` and returns its `credspec` field as parsed JSON.
 * @throws InvalidCredSpecNameError before any call for a name that is not a DNS-1123 subdomain,
 *   CredSpecNotFoundError (422), CredSpecWithoutContentsError (422), KubeApiError / CredentialsError /
 *   DeadlineExceededError (500).
 */
export async function readCredSpecContents(request: KubeRequester, name: string, call: CallOptions): Promise<NonNullable<unknown>> {
  const what = `reading GMSACredentialSpec ${JSON.stringify(name)}`;
  if (!isDns1123Subdomain(name)) {
    throw new InvalidCredSpecNameError(`GMSACredentialSpec name ${JSON.stringify(name)} is not a DNS-1123 subdomain`);
  }
  const answer = await request({ method: "GET", path: credSpecPath(name), resource: CREDSPEC_RESOURCE, what, ...call });
  if (answer.status === 404) {
    const status = readStatus(answer.body);
    // A NotFound Status without details.name is about the path, not the object: the CRD is not served.
    if (status?.reason === "NotFound" && status.details?.name === undefined) {
      throw new KubeApiError(`${what}: the API server does not serve ${CREDSPEC_API_VERSION} ${CREDSPEC_RESOURCE} (is the CRD installed?)`);
    }
    throw new CredSpecNotFoundError(`GMSACredentialSpec ${JSON.stringify(name)} does not exist`);
  }
  if (answer.status !== 200) throw errorFromAnswer(what, answer.status, answer.body);
  const contents = (answer.body as { credspec?: unknown } | null)?.credspec;
  if (contents === undefined || contents === null) {
    throw new CredSpecWithoutContentsError(`GMSACredentialSpec ${JSON.stringify(name)} has no credspec field`);
  }
  return contents;
}

/**
 * An LRU cache whose entries expire `ttlMs` after they are set; none when `ttlMs` is 0. `ttlResolution: 0` reads the
 * clock on every lookup rather than arming a timer, which a Worker may not do outside a request.
 * @throws TypeError when `ttlMs` is negative or not an integer.
 */
function createCache<V extends NonNullable<unknown>>(ttlMs: number, now: (() => number) | undefined, bytes: Partial<LRUCache.Options<string, V, unknown>> = {}): LRUCache<string, V> | undefined {
  if (!Number.isInteger(ttlMs) || ttlMs < 0) throw new TypeError("cache TTLs must be non-negative integers of ms");
  if (ttlMs === 0) return undefined;
  return new LRUCache<string, V>({ max: CACHE_MAX_ENTRIES, ttl: ttlMs, ttlResolution: 0, ...bytes, ...(now === undefined ? {} : { perf: { now } }) });
}

/** Freezes a parsed JSON value and everything in it. */
function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
