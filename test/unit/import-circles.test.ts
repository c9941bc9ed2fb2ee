/**
 * No import circles among functions/, shared/ and cli/, type-only imports and `import()` included (issue 36): a circle,
 * even of types, means a type lives away from its owner, and the files in it can only be read together.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const FOLDERS = ["functions", "shared", "cli"];

/** Each source file (repository-relative) and the source files it imports, by relative specifier. */
function readImportGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const folder of FOLDERS) {
    for (const entry of readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith(".ts") || entry.name.endsWith(".d.ts")) continue;
      const path = join(entry.parentPath, entry.name);
      // preProcessFile lists every import, export-from and import() specifier, `import type` ones too.
      const { importedFiles } = ts.preProcessFile(readFileSync(path, "utf8"), true, true);
      const targets = importedFiles
        .map(({ fileName }) => fileName)
        .filter((specifier) => specifier.startsWith(".") && specifier.endsWith(".ts"))
        .map((specifier) => relative(ROOT, resolve(dirname(path), specifier)));
      graph.set(relative(ROOT, path), [...new Set(targets)]);
    }
  }
  return graph;
}

/** Circles as the files along each (first file repeated last): one per back edge a depth-first walk meets; none when there are none. */
export function findImportCircles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const circles: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (file: string): void => {
    state.set(file, "open");
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === "open") circles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next) && graph.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, "done");
  };
  for (const file of [...graph.keys()].sort()) if (!state.has(file)) visit(file);
  return circles;
}

describe("imports among functions/ and shared/", () => {
  it("form no circle, type-only imports included", () => {
    const graph = readImportGraph();
    expect(graph.size).toBeGreaterThan(50);
    expect(findImportCircles(graph).map((circle) => circle.join(" -> "))).toEqual([]);
  });

  it("finds a circle made only of type imports", () => {
    expect(
      findImportCircles(
        new Map([
          ["a.ts", ["b.ts"]],
          ["b.ts", ["c.ts"]],
          ["c.ts", ["a.ts"]],
        ]),
      ),
    ).toEqual([["a.ts", "b.ts", "c.ts", "a.ts"]]);
  });
});
