import { describe, expect, it, vi } from "vitest";
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

  it("bounds the bytes held: evicts the least recently used, never stores a value over the entry bound", () => {
    const cache = createTtlCache<string>({ maxEntries: 10, ttlMs: 100, maxBytes: 100, maxEntryBytes: 60, now: () => 0 });
    cache.set("a", "1", 40);
    cache.set("b", "2", 40);
    expect(cache.get("a")).toBe("1");
    cache.set("c", "3", 40);
    expect(cache.get("b")).toBeUndefined();
    expect(cache.get("a")).toBe("1");
    expect(cache.get("c")).toBe("3");
    cache.set("big", "4", 61);
    expect(cache.get("big")).toBeUndefined();
    // A value replaced by one too big is gone too, and its bytes with it.
    cache.set("a", "5", 61);
    expect(cache.get("a")).toBeUndefined();
    cache.set("d", "6", 60);
    expect(cache.get("c")).toBe("3");
    expect(cache.get("d")).toBe("6");
    expect(cache.stats().size).toBe(2);
  });

  it("expires by a monotonic clock by default: a wall clock stepped back keeps nothing past its TTL", async () => {
    const wall = vi.spyOn(Date, "now").mockReturnValue(Date.now());
    try {
      const cache = createTtlCache<string>({ maxEntries: 10, ttlMs: 20 });
      cache.set("k", "v");
      wall.mockReturnValue(Date.now() - 3_600_000);
      await new Promise((resolve) => setTimeout(resolve, 40));
      expect(cache.get("k")).toBeUndefined();
    } finally {
      wall.mockRestore();
    }
  });

  it("stores nothing when switched off with 0", () => {
    const cache = createTtlCache<string>({ maxEntries: 0, ttlMs: 100 });
    cache.set("k", "v");
    expect(cache.get("k")).toBeUndefined();
  });

  it("checks its options", () => {
    expect(() => createTtlCache({ maxEntries: 1.5, ttlMs: 1 })).toThrow(TypeError);
    expect(() => createTtlCache({ maxEntries: 1, ttlMs: -1 })).toThrow(TypeError);
    expect(() => createTtlCache({ maxEntries: 1, ttlMs: 1, maxBytes: -1 })).toThrow(TypeError);
    expect(() => createTtlCache({ maxEntries: 1, ttlMs: 1, maxEntryBytes: 0.5 })).toThrow(TypeError);
  });
});
