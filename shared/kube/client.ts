/** The seam between the handlers and the Kubernetes API, and the real client with its caches (docs/configuration.md, Caches and their staleness). */
import { LRUCache } from "lru-cache";
import { checkCredSpecName, describeAccessReview, reviewCredSpecAccess, type AccessQuery } from "./access-reviews.ts";
import {
  createKubeRequester,
  errorFromAnswer,
  readStatus,
  type CallOptions,
  type KubeRequester,
  type KubeRequesterOptions,
} from "./request.ts";
import type { CacheName } from "../observer.ts";
import type { Pod } from "../admission/review.ts";
import type { AccessAnswer } from "../policy/facts.ts";
import { awaitWithin } from "../deadline.ts";
import { CREDSPEC_API_VERSION, CREDSPEC_RESOURCE } from "../credspec/resource.ts";
import { AdmissionError } from "../errors.ts";
import { MAX_CREDSPEC_CONTENTS_BYTES } from "../policy/expand.ts";
import { readPod } from "./pods.ts";

/** The facts the GMSA rules need; unit tests pass an in-memory fake. Each throws as {@link readCredSpecContents} and {@link reviewCredSpecAccess}. */
export interface GmsaClient {
  /** The parsed `credspec` field of the cluster-scoped GMSACredentialSpec `name`. */
  getCredSpecContents(name: string, options: CallOptions): Promise<unknown>;
  /** A LocalSubjectAccessReview for verb `use` on the credspec (docs/security.md, Access reviews; the user: REVIEW_REQUESTING_USER). */
  canUseCredSpec(query: AccessQuery, options: CallOptions): Promise<AccessAnswer>;
  /** The pod an exec or attach goes into (REVIEW_REQUESTING_USER), read as {@link readPod} reads it. */
  getPod(namespace: string, name: string, options: CallOptions): Promise<Pod>;
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
  /** True on Node: misses of one key in flight await one call. Never on Workers, where a request must not await another's promise. */
  shareInFlight?: boolean | undefined;
}

/** A {@link GmsaClient} with each cache's hits and misses since start-up and the entries it holds, and its requester for the readiness check. */
export type KubeGmsaClient = GmsaClient & {
  stats(): Record<"credSpecCache" | "accessCache", { hits: number; misses: number; size: number }>;
  request: KubeRequester;
};

/** Builds the client. @throws TypeError (lru-cache's) for a TTL that is not a non-negative integer. */
export function createKubeGmsaClient(options: KubeGmsaClientOptions): KubeGmsaClient {
  const request = createKubeRequester(options);
  // Kept parsed and deeply frozen, so no handler can change what the next review sees; never contents over the size a
  // pod may carry (the policy refuses them anyway), measured as the policy measures it: UTF-8 bytes of compact JSON.
  const credSpecs = createCache<NonNullable<unknown>>(
    "credspec",
    options.credSpecCacheTtlMs ?? DEFAULT_CREDSPEC_CACHE_TTL_MS,
    options,
    {
      maxSize: CREDSPEC_CACHE_MAX_BYTES,
      maxEntrySize: MAX_CREDSPEC_CONTENTS_BYTES,
      sizeCalculation: (value) => new TextEncoder().encode(JSON.stringify(value)).length,
    },
  );
  const access = createCache<AccessAnswer>(
    "access",
    options.accessCacheTtlMs ?? DEFAULT_ACCESS_CACHE_TTL_MS,
    options,
    {},
    (decision) => decision.allowed,
  );
  return {
    getCredSpecContents: (name, call) =>
      credSpecs.get(name, call, `reading GMSACredentialSpec ${JSON.stringify(name)}`, async () =>
        deepFreeze(await readCredSpecContents(request, name, call)),
      ),
    canUseCredSpec(query, call) {
      // Never cached for a user: their identity carries groups and extra (scopes, session ids) that change per
      // login, so a key would have to hold all of it, and a hit would be rare; a review per ephemeral container is cheap.
      if ("user" in query) return reviewCredSpecAccess(request, query, call);
      // Names cannot contain "/", so the key is unambiguous.
      const key = `${query.namespace}/${query.serviceAccount}/${query.credSpecName}`;
      return access.get(key, call, describeAccessReview(query), async () =>
        Object.freeze(await reviewCredSpecAccess(request, query, call)),
      );
    },
    getPod: (namespace, name, call) => readPod(request, namespace, name, call),
    request,
    stats: () => ({ credSpecCache: credSpecs.stats(), accessCache: access.stats() }),
  };
}

/** The path of one cluster-scoped GMSACredentialSpec. */
export function credSpecPath(name: string): string {
  return `/apis/${CREDSPEC_API_VERSION}/${CREDSPEC_RESOURCE}/${encodeURIComponent(name)}`;
}

/**
 * The `credspec` field of the GMSACredentialSpec `name`, parsed. @throws AdmissionError ERR_INVALID_CREDSPEC_NAME
 * before any call, ERR_CREDSPEC_NOT_FOUND, ERR_CREDSPEC_WITHOUT_CONTENTS (422); ERR_KUBE_API, ERR_CREDENTIALS,
 * ERR_DEADLINE_EXCEEDED (500).
 */
export async function readCredSpecContents(
  request: KubeRequester,
  name: string,
  call: CallOptions,
): Promise<NonNullable<unknown>> {
  const what = `reading GMSACredentialSpec ${JSON.stringify(name)}`;
  checkCredSpecName(name);
  const answer = await request({ method: "GET", path: credSpecPath(name), resource: CREDSPEC_RESOURCE, what, ...call });
  if (answer.status === 404) {
    const status = readStatus(answer.body);
    // A NotFound Status without details.name is about the path, not the object: the CRD is not served.
    if (status?.reason === "NotFound" && status.details?.name === undefined) {
      throw new AdmissionError(
        `${what}: the API server does not serve ${CREDSPEC_API_VERSION} ${CREDSPEC_RESOURCE} (is the CRD installed?)`,
        { code: "ERR_KUBE_API" },
      );
    }
    throw new AdmissionError(`GMSACredentialSpec ${JSON.stringify(name)} does not exist`, {
      code: "ERR_CREDSPEC_NOT_FOUND",
    });
  }
  if (answer.status !== 200) throw errorFromAnswer(what, answer.status, answer.body);
  const contents = (answer.body as { credspec?: unknown } | null)?.credspec;
  if (contents === undefined || contents === null) {
    throw new AdmissionError(`GMSACredentialSpec ${JSON.stringify(name)} has no credspec field`, {
      code: "ERR_CREDSPEC_WITHOUT_CONTENTS",
    });
  }
  return contents;
}

/**
 * An LRU cache (none at TTL 0) of what `load` gives and `keep` keeps, its lookups counted. `ttlResolution: 0` reads the
 * clock per lookup: a Worker may not arm a timer outside a request. With `shareInFlight` (Node), reviews that miss one
 * key join the call the first started (a cold start would otherwise send one per review), each waiting to its own deadline.
 */
function createCache<V extends NonNullable<unknown>>(
  which: CacheName,
  ttlMs: number,
  options: KubeGmsaClientOptions,
  bytes: Partial<LRUCache.Options<string, V, unknown>>,
  keep = (_value: V) => true,
) {
  const { monotonicNow: now, observer } = options;
  const lru =
    ttlMs === 0
      ? undefined
      : new LRUCache<string, V>({
          max: CACHE_MAX_ENTRIES,
          ttl: ttlMs,
          ttlResolution: 0,
          ...bytes,
          ...(now && { perf: { now } }),
        });
  const counts = { hits: 0, misses: 0 };
  const inFlight = new Map<string, Promise<V>>();
  const loadAndKeep = async (key: string, load: () => Promise<V>): Promise<V> => {
    const value = await load();
    if (keep(value)) lru?.set(key, value);
    return value;
  };
  return {
    stats: () => ({ ...counts, size: lru?.size ?? 0 }),
    async get(key: string, call: CallOptions, what: string, load: () => Promise<V>): Promise<V> {
      const value = lru?.get(key);
      const hit = value !== undefined;
      observer?.cacheRequest(which, hit);
      counts[hit ? "hits" : "misses"]++;
      if (call.tally !== undefined) call.tally[hit ? "cacheHits" : "cacheMisses"]++;
      if (hit) return value;
      if (options.shareInFlight !== true) return loadAndKeep(key, load);
      const running = inFlight.get(key);
      const deadlineError = () =>
        new AdmissionError(`${what}: no answer from the API server within the deadline`, {
          code: "ERR_DEADLINE_EXCEEDED",
        });
      if (running !== undefined) return awaitWithin(running, call.signal, deadlineError);
      const started = loadAndKeep(key, load).finally(() => inFlight.delete(key));
      inFlight.set(key, started);
      return started;
    },
  };
}

/** Freezes a parsed JSON value and everything in it. */
function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
