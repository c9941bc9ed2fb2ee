/**
 * No import circles among functions/, shared/ and cli/, type-only imports and `import()` included (issue 36): a circle,
 * even of types, means a type lives away from its owner, and the files in it can only be read together.
 */
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { findCircles, relativeImports } from "./import-graph.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const FOLDERS = ["functions", "shared", "cli"];

/** Each source file (repository-relative) and the source files it imports, by relative specifier. */
function readImportGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const folder of FOLDERS) {
    for (const entry of readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith(".ts") || entry.name.endsWith(".d.ts")) continue;
      const path = join(entry.parentPath, entry.name);
      const targets = relativeImports(path)
        .filter((target) => target.endsWith(".ts"))
        .map((target) => relative(ROOT, target));
      graph.set(relative(ROOT, path), [...new Set(targets)]);
    }
  }
  return graph;
}

describe("imports among functions/ and shared/", () => {
  it("form no circle, type-only imports included", () => {
    const graph = readImportGraph();
    expect(graph.size).toBeGreaterThan(50);
    expect(findCircles(graph).map((circle) => circle.join(" -> "))).toEqual([]);
  });

  it("finds a circle made only of type imports", () => {
    expect(
      findCircles(
        new Map([
          ["a.ts", ["b.ts"]],
          ["b.ts", ["c.ts"]],
          ["c.ts", ["a.ts"]],
        ]),
      ),
    ).toEqual([["a.ts", "b.ts", "c.ts", "a.ts"]]);
  });
});
