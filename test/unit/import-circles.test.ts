/**
 * No import circles among functions/, shared/ and cli/, type-only imports and `import()` included (issue 36): a circle,
 * even of types, means a type lives away from its owner, and the files in it can only be read together.
 */
import { describe, expect, it } from "vitest";
import { findCircles, importGraph, listFiles } from "./import-graph.ts";

describe("imports among functions/ and shared/", () => {
  it("form no circle, type-only imports included", () => {
    const graph = importGraph(listFiles(["functions", "shared", "cli"]));
    expect(graph.size).toBeGreaterThan(50);
    expect(findCircles(graph).map((circle) => circle.join(" -> "))).toEqual([]);
  });
});
