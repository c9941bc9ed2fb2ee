import { describe, expect, it } from "vitest";
import { createTtlCache } from "../../../../shared/kube/ttl-cache.ts";

describe("createTtlCache", () => {
  it("evicts the least recently used entry when full", () => {
    const cache = createTtlCache<number>({ maxEntries: 2, ttlMs: 1_000, now: () => 0 });
    cache.set("a", 1);
    cache.set("b", 2);
    expect(cache.get("a")).toBe(1);
    cache.set("c", 3);
    expect(cache.get("b")).toBeUndefined();
    expect(cache.get("a")).toBe(1);
    expect(cache.get("c")).toBe(3);
    expect(cache.stats().size).toBe(2);
  });

  it("expires entries after ttlMs", () => {
    let clock = 0;
    const cache = createTtlCache<string>({ maxEntries: 10, ttlMs: 100, now: () => clock });
    cache.set("k", "v");
    clock = 99;
    expect(cache.get("k")).toBe("v");
    clock = 100;
    expect(cache.get("k")).toBeUndefined();
    expect(cache.stats()).toEqual({ hits: 1, misses: 1, size: 0 });
  });

  it("stores nothing when switched off with 0", () => {
    const cache = createTtlCache<string>({ maxEntries: 0, ttlMs: 100 });
    cache.set("k", "v");
    expect(cache.get("k")).toBeUndefined();
  });

  it("checks its options", () => {
    expect(() => createTtlCache({ maxEntries: 1.5, ttlMs: 1 })).toThrow(TypeError);
    expect(() => createTtlCache({ maxEntries: 1, ttlMs: -1 })).toThrow(TypeError);
  });
});
