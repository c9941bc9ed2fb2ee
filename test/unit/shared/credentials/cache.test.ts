import { describe, expect, it } from "vitest";
import { createCredentialCache, type CredentialCacheOptions } from "../../../../shared/credentials/cache.ts";
import type { Credential } from "../../../../shared/credentials/token-source.ts";
import type { CallTally, RefreshOutcome } from "../../../../shared/observer.ts";

const T0 = Date.parse("2030-01-01T00:00:00Z");
const at = (ms: number): string => new Date(T0 + ms).toISOString();

/** How many loads a cache whose credentials live `lifetimeMs` (none: no expiry) has run once its clock reaches each of `times`. */
async function loadsAt(lifetimeMs: number | undefined, times: number[]): Promise<number[]> {
  let clock = T0;
  let loads = 0;
  const cache = createCredentialCache({
    describe: "s",
    shareInFlight: true,
    now: () => clock,
    load: () =>
      Promise.resolve({
        token: `t${++loads}`,
        ...(lifetimeMs === undefined ? {} : { expirationTimestamp: new Date(clock + lifetimeMs).toISOString() }),
      }),
  });
  await cache.getCredential();
  const seen: number[] = [];
  for (const time of times) {
    clock = T0 + time;
    await cache.getCredential();
    seen.push(loads);
  }
  return seen;
}

describe("createCredentialCache refresh time", () => {
  it("refreshes 10% before expiry, at least 5 s and at most 60 s before, never past half the lifetime", async () => {
    expect(await loadsAt(3600_000, [3600_000 - 60_001, 3600_000 - 60_000])).toEqual([1, 2]);
    expect(await loadsAt(300_000, [300_000 - 30_001, 300_000 - 30_000])).toEqual([1, 2]);
    expect(await loadsAt(20_000, [20_000 - 5_001, 20_000 - 5_000])).toEqual([1, 2]);
    expect(await loadsAt(4_000, [1_999, 2_000])).toEqual([1, 2]);
  });

  it("never refreshes a credential without expiry, and refuses one already expired", async () => {
    expect(await loadsAt(undefined, [365 * 24 * 3600_000])).toEqual([1]);
    const { cache } = counting(() => Promise.resolve({ token: "t", expirationTimestamp: at(-1) }));
    await expect(cache.getCredential()).rejects.toThrow("plugin returned a credential that has already expired");
  });
});

describe("createCredentialCache", () => {
  it("does not back off when only the caller gave up (Workers mode)", async () => {
    const { cache, loads } = counting(
      (_loads, _wall, signal) =>
        new Promise<Credential>((resolve, reject) => {
          signal?.addEventListener("abort", () => reject(new Error("aborted")));
          setTimeout(() => resolve({ token: "t" }), 200);
        }),
      { shareInFlight: false },
    );
    const late = await cache.getCredential({ signal: AbortSignal.timeout(20) }).catch((error: unknown) => error);
    expect(late).toMatchObject({ code: "ERR_CREDENTIALS" });
    expect((late as Error).cause).toMatchObject({ code: "ERR_DEADLINE_EXCEEDED" });
    await expect(cache.getCredential()).resolves.toEqual({ token: "t" });
    expect(loads()).toBe(2);
  });

  it("ignores invalidation of a credential that was already replaced", async () => {
    const { cache, loads } = counting();
    const first = await cache.getCredential();
    cache.invalidate(first);
    const second = await cache.getCredential();
    cache.invalidate(first);
    expect(await cache.getCredential()).toBe(second);
    expect(loads()).toBe(2);
  });
});

/** A cache of a source "plugin" that loads `t1`, `t2`... (or what `load` says), with a wall and a monotonic clock. */
function counting(
  load = (loads: number, _wall: number, _signal?: AbortSignal): Promise<Credential> =>
    Promise.resolve({ token: `t${loads}` }),
  options: Partial<CredentialCacheOptions> = {},
) {
  let wall = T0;
  let elapsed = 0;
  let loads = 0;
  const cache = createCredentialCache({
    describe: "plugin",
    shareInFlight: true,
    now: () => wall,
    monotonic: () => elapsed,
    load: (signal) => load(++loads, wall, signal),
    ...options,
  });
  return {
    cache,
    loads: () => loads,
    advance: (ms: number) => ((wall += ms), (elapsed += ms)),
    stepWall: (ms: number) => (wall += ms),
  };
}

describe("createCredentialCache after 401s", () => {
  it("refreshes at once after the first refusal, backs off when fresh credentials keep being refused", async () => {
    const { cache, loads, advance } = counting();
    cache.invalidate(await cache.getCredential());
    const second = await cache.getCredential();
    expect(loads()).toBe(2);
    cache.invalidate(second);
    await expect(cache.getCredential()).rejects.toThrow(
      "plugin issued 2 credentials in a row that the API server refused (401) (not retried for another 1s)",
    );
    expect(loads()).toBe(2);
    advance(1_000);
    cache.invalidate(await cache.getCredential());
    await expect(cache.getCredential()).rejects.toThrow(/not retried for another 2s/);
    expect(loads()).toBe(3);
  });

  it("counts refusals in a row only: one after the credential was accepted gets an immediate refresh again", async () => {
    const { cache, loads } = counting();
    cache.invalidate(await cache.getCredential());
    const second = await cache.getCredential();
    cache.accepted?.(second);
    cache.invalidate(second);
    const third = await cache.getCredential();
    cache.accepted?.(third);
    cache.invalidate(third);
    await expect(cache.getCredential()).resolves.toEqual({ token: "t4" });
    expect(loads()).toBe(4);
  });

  it("treats a refusal of a long-used credential as a revocation, not a broken source", async () => {
    const { cache, loads, advance } = counting();
    cache.invalidate(await cache.getCredential());
    const second = await cache.getCredential();
    advance(3600_000);
    cache.invalidate(second);
    await expect(cache.getCredential()).resolves.toEqual({ token: "t3" });
    expect(loads()).toBe(3);
  });
});

describe("createCredentialCache's backoff on a stepped wall clock", () => {
  it("retries a failed source after the backoff's second of monotonic time, though the wall clock stepped back an hour", async () => {
    const { cache, loads, advance, stepWall } = counting((n, wall) =>
      n === 1
        ? Promise.reject(new Error("unreachable"))
        : Promise.resolve({ token: "t", expirationTimestamp: new Date(wall + 3600_000).toISOString() }),
    );
    await expect(cache.getCredential()).rejects.toThrow("plugin failed");
    stepWall(-3600_000);
    await expect(cache.getCredential()).rejects.toThrow(/not retried for another 1s/);
    advance(1_000);
    await expect(cache.getCredential()).resolves.toEqual({ token: "t", expirationTimestamp: at(1_000) });
    expect(loads()).toBe(2);
  });

  it("counts a refusal soon after issue as fresh by monotonic time, whatever the wall clock did", async () => {
    const { cache, loads, advance, stepWall } = counting();
    cache.invalidate(await cache.getCredential());
    const second = await cache.getCredential();
    // A wall clock stepped forward two hours: still 1 s after the credential was obtained.
    stepWall(7200_000);
    advance(1_000);
    cache.invalidate(second);
    await expect(cache.getCredential()).rejects.toThrow(/2 credentials in a row that the API server refused/);
    expect(loads()).toBe(2);
  });
});

/** A tally at zero, as the review handler starts one. */
const createCallTally = (): CallTally => ({ kubeRequests: 0, cacheHits: 0, cacheMisses: 0 });

describe("createCredentialCache onRefresh", () => {
  it("counts a refresh shared by concurrent callers once, and marks each caller's tally", async () => {
    const outcomes: RefreshOutcome[] = [];
    let release: (credential: Credential) => void = () => undefined;
    const { cache } = counting(() => new Promise<Credential>((resolve) => (release = resolve)), {
      onRefresh: (outcome) => outcomes.push(outcome),
    });
    const [first, second, third] = [createCallTally(), createCallTally(), createCallTally()];
    const waiting = [cache.getCredential({ tally: first }), cache.getCredential({ tally: second })];
    release({ token: "t" });
    await Promise.all(waiting);
    await cache.getCredential({ tally: third });
    expect(outcomes).toEqual(["success"]);
    expect(first.tokenRefresh).toBe("success");
    expect(second.tokenRefresh).toBe("success");
    // Served from the cache: no refresh to report.
    expect(third.tokenRefresh).toBeUndefined();
  });

  it("reports a failed refresh, and not the backoff that follows it", async () => {
    const outcomes: RefreshOutcome[] = [];
    const { cache } = counting(() => Promise.reject(new Error("boom")), {
      shareInFlight: false,
      onRefresh: (o) => outcomes.push(o),
    });
    const tally = createCallTally();
    // An unknown load failure is ERR_CREDENTIALS naming the source.
    await expect(cache.getCredential({ tally })).rejects.toMatchObject({
      code: "ERR_CREDENTIALS",
      message: "plugin failed",
    });
    await expect(cache.getCredential()).rejects.toThrow(/not retried/);
    expect(outcomes).toEqual(["failure"]);
    expect(tally.tokenRefresh).toBe("failure");
  });
});
