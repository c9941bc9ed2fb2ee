import { describe, expect, it } from "vitest";
import {
  CACHE_MAX_ENTRIES,
  CREDSPEC_CACHE_MAX_BYTES,
  type KubeGmsaClientOptions,
} from "../../../../shared/kube/client.ts";
import { MAX_CREDSPEC_CONTENTS_BYTES } from "../../../../shared/policy/expand.ts";
import { createFakeKubeClient, json, status, type FakeScript } from "../../../support/fake-fetch.ts";

const call = () => ({ signal: AbortSignal.timeout(10_000) });
const query = { namespace: "shop", serviceAccount: "web", credSpecName: "webapp01" };

function setup(
  options: Partial<KubeGmsaClientOptions>,
  answers: { allowed?: boolean; found?: boolean; contents?: unknown; contentsOf?: (url: string) => unknown } = {},
) {
  let wall = Date.parse("2030-01-01T00:00:00Z");
  let clock = 1_000;
  const script: FakeScript = (request) => {
    if (request.method === "POST") return json(201, { status: { allowed: answers.allowed ?? true } });
    if (answers.found === false) return status(404, "NotFound", { name: "webapp01" });
    return json(200, { credspec: answers.contentsOf?.(request.url) ?? answers.contents ?? { n: 1 } });
  };
  const { client, calls } = createFakeKubeClient(script, { now: () => wall, monotonicNow: () => clock, ...options });
  return {
    client,
    calls,
    advance: (ms: number) => {
      clock += ms;
      wall += ms;
    },
    /** The wall clock alone moves (NTP, a resumed VM); the monotonic one does not. */
    stepWall: (ms: number) => (wall += ms),
  };
}

describe("credspec contents cache", () => {
  it("serves repeated reads from the cache until the TTL has passed", async () => {
    const { client, calls, advance } = setup({ credSpecCacheTtlMs: 30_000 });
    await client.getCredSpecContents("webapp01", call());
    advance(30_000);
    await client.getCredSpecContents("webapp01", call());
    expect(calls).toHaveLength(1);
    advance(1);
    await client.getCredSpecContents("webapp01", call());
    expect(calls).toHaveLength(2);
    expect(client.stats().credSpecCache).toEqual({ hits: 1, misses: 2, size: 1 });
  });

  it("hands every reader the same frozen contents, so no caller can change what the next one reads", async () => {
    const { client } = setup({}, { contents: { n: 1, inner: { list: [1] } } });
    const first = (await client.getCredSpecContents("webapp01", call())) as { n: number; inner: { list: number[] } };
    expect(() => (first.n = 2)).toThrow(TypeError);
    expect(() => first.inner.list.push(2)).toThrow(TypeError);
    const second = await client.getCredSpecContents("webapp01", call());
    expect(second).toBe(first);
    expect(second).toEqual({ n: 1, inner: { list: [1] } });
  });

  it("expires by the monotonic clock: a wall clock stepped back an hour keeps nothing past its TTL", async () => {
    const { client, calls, advance, stepWall } = setup({});
    await client.getCredSpecContents("webapp01", call());
    await client.canUseCredSpec(query, call());
    stepWall(-3_600_000);
    advance(30_001);
    await client.getCredSpecContents("webapp01", call());
    await client.canUseCredSpec(query, call());
    expect(calls).toHaveLength(4);
  });

  it("never caches contents over the 65,536 bytes a pod may carry", async () => {
    const big = { blob: "x".repeat(MAX_CREDSPEC_CONTENTS_BYTES) };
    const { client, calls } = setup({}, { contents: big });
    expect(await client.getCredSpecContents("webapp01", call())).toEqual(big);
    await client.getCredSpecContents("webapp01", call());
    expect(calls).toHaveLength(2);
    expect(client.stats().credSpecCache.size).toBe(0);
  });

  it("bounds the bytes held in all: the least recently read credspecs go first", async () => {
    // Each just under the per-credspec bound; more of them than the total bound holds.
    const contentsBytes = MAX_CREDSPEC_CONTENTS_BYTES - 100;
    const count = Math.ceil(CREDSPEC_CACHE_MAX_BYTES / contentsBytes) + 2;
    expect(count).toBeLessThan(CACHE_MAX_ENTRIES);
    const { client, calls } = setup(
      {},
      { contentsOf: (url) => ({ name: url, blob: "x".repeat(contentsBytes - url.length - 30) }) },
    );
    for (let i = 0; i < count; i++) await client.getCredSpecContents(`c${i}`, call());
    const held = client.stats().credSpecCache.size;
    expect(held).toBeLessThan(count);
    expect(held * contentsBytes).toBeLessThanOrEqual(CREDSPEC_CACHE_MAX_BYTES);
    await client.getCredSpecContents(`c${count - 1}`, call());
    expect(calls).toHaveLength(count);
    await client.getCredSpecContents("c0", call());
    expect(calls).toHaveLength(count + 1);
  });
});

describe("access review cache", () => {
  it("caches allowed decisions for the TTL (default 10 s)", async () => {
    const { client, calls, advance } = setup({});
    await client.canUseCredSpec(query, call());
    advance(10_000);
    expect(await client.canUseCredSpec(query, call())).toEqual({ allowed: true, reason: "" });
    expect(calls).toHaveLength(1);
    advance(1);
    await client.canUseCredSpec(query, call());
    expect(calls).toHaveLength(2);
  });

  it("keys on namespace, service account and credspec", async () => {
    const { client, calls } = setup({});
    await client.canUseCredSpec(query, call());
    await client.canUseCredSpec({ ...query, serviceAccount: "other" }, call());
    await client.canUseCredSpec({ ...query, namespace: "other" }, call());
    expect(calls).toHaveLength(3);
  });

  it("holds at most CACHE_MAX_ENTRIES decisions: the least recently used goes first", async () => {
    const { client, calls } = setup({});
    await client.canUseCredSpec(query, call());
    for (let i = 1; i < CACHE_MAX_ENTRIES; i++)
      await client.canUseCredSpec({ ...query, serviceAccount: `sa${i}` }, call());
    await client.canUseCredSpec(query, call());
    expect(calls).toHaveLength(CACHE_MAX_ENTRIES);
    await client.canUseCredSpec({ ...query, serviceAccount: "one-more" }, call());
    await client.canUseCredSpec({ ...query, serviceAccount: "sa1" }, call());
    expect(calls).toHaveLength(CACHE_MAX_ENTRIES + 2);
    expect(client.stats().accessCache.size).toBe(CACHE_MAX_ENTRIES);
  });

  it("never caches a denial, nor a missing credspec", async () => {
    const { client, calls } = setup({}, { allowed: false, found: false });
    for (let i = 0; i < 2; i++) {
      await client.canUseCredSpec(query, call());
      await expect(client.getCredSpecContents("webapp01", call())).rejects.toMatchObject({
        code: "ERR_CREDSPEC_NOT_FOUND",
      });
    }
    expect(calls).toHaveLength(4);
  });

  it("can be switched off, as can the credspec cache", async () => {
    const { client, calls } = setup({ accessCacheTtlMs: 0, credSpecCacheTtlMs: 0 });
    for (let i = 0; i < 2; i++) {
      await client.canUseCredSpec(query, call());
      await client.getCredSpecContents("webapp01", call());
    }
    expect(calls).toHaveLength(4);
  });
});

describe("concurrent misses of one key", () => {
  /** A fake API server whose answers wait until `release()`, and a client that shares calls in flight (Node's). */
  function gated(answer: (method: string) => Response, shareInFlight = true) {
    let release = (): void => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const script: FakeScript = async (request) => {
      await gate;
      return answer(request.method);
    };
    return { ...createFakeKubeClient(script, { shareInFlight }), release };
  }

  it("share one credspec read: one API call, the same contents for every review, each review counting its miss", async () => {
    const { client, calls, release } = gated(() => json(200, { credspec: { n: 1 } }));
    const tallies = [0, 1, 2].map(() => ({ kubeRequests: 0, cacheHits: 0, cacheMisses: 0 }));
    const reads = tallies.map((tally) => client.getCredSpecContents("webapp01", { ...call(), tally }));
    release();
    const [first, ...others] = await Promise.all(reads);
    expect(calls).toHaveLength(1);
    for (const other of others) expect(other).toBe(first);
    expect(tallies.map((tally) => tally.cacheMisses)).toEqual([1, 1, 1]);
    expect(tallies.map((tally) => tally.kubeRequests)).toEqual([1, 0, 0]);
    expect(client.stats().credSpecCache).toEqual({ hits: 0, misses: 3, size: 1 });
  });

  it("share one access review per query, never across queries", async () => {
    const { client, calls, release } = gated(() => json(201, { status: { allowed: true } }));
    const reviews = [query, query, { ...query, serviceAccount: "other" }].map((q) => client.canUseCredSpec(q, call()));
    release();
    expect((await Promise.all(reviews)).map((decision) => decision.allowed)).toEqual([true, true, true]);
    expect(calls.map((c) => c.method)).toEqual(["POST", "POST"]);
  });

  it("share a failure, and the next miss makes a call of its own", async () => {
    const { client, calls, release } = gated(() => status(404, "NotFound", { name: "webapp01" }));
    const reads = [client.getCredSpecContents("webapp01", call()), client.getCredSpecContents("webapp01", call())];
    release();
    for (const read of reads) await expect(read).rejects.toMatchObject({ code: "ERR_CREDSPEC_NOT_FOUND" });
    expect(calls).toHaveLength(1);
    await expect(client.getCredSpecContents("webapp01", call())).rejects.toMatchObject({
      code: "ERR_CREDSPEC_NOT_FOUND",
    });
    expect(calls).toHaveLength(2);
  });

  it("let a review that joins stop at its own deadline, while the call goes on for the one that started it", async () => {
    const { client, calls, release } = gated(() => json(200, { credspec: { n: 1 } }));
    const started = client.getCredSpecContents("webapp01", call());
    const joined = new AbortController();
    const joining = client.getCredSpecContents("webapp01", { signal: joined.signal });
    joined.abort();
    await expect(joining).rejects.toMatchObject({ code: "ERR_DEADLINE_EXCEEDED" });
    await expect(joining).rejects.toThrow(
      /GMSACredentialSpec "webapp01": no answer from the API server within the deadline/,
    );
    release();
    expect(await started).toEqual({ n: 1 });
    expect(calls).toHaveLength(1);
  });

  it("stay separate calls where a request must not await another's promise (Workers)", async () => {
    const { client, calls, release } = gated(() => json(200, { credspec: { n: 1 } }), false);
    const reads = [client.getCredSpecContents("webapp01", call()), client.getCredSpecContents("webapp01", call())];
    release();
    await Promise.all(reads);
    expect(calls).toHaveLength(2);
  });
});
