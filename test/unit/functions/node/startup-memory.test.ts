import { describe, expect, it, vi } from "vitest";
import { releaseStartupMemory, takeGc, type GcFunction } from "../../../../functions/node/startup-memory.ts";

describe("the collection after start-up", () => {
  it("takes gc off the scope, so no other code can call it", () => {
    const gc = vi.fn() as unknown as GcFunction;
    // As V8 installs it: writable, not configurable.
    const scope = Object.defineProperty({}, "gc", { value: gc, writable: true, enumerable: true, configurable: false }) as { gc?: GcFunction };
    expect(takeGc(scope)).toBe(gc);
    expect(scope.gc).toBeUndefined();
  });

  it("is skipped without --expose-gc", () => {
    expect(takeGc({})).toBeUndefined();
    expect(() => releaseStartupMemory(undefined)).not.toThrow();
  });

  it("asks V8 for one synchronous, memory-reducing full collection", () => {
    const gc = vi.fn();
    releaseStartupMemory(gc);
    expect(gc.mock.calls).toEqual([[{ type: "major", execution: "sync", flavor: "last-resort" }]]);
  });
});
