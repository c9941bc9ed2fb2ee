/** Reading and walking import graphs, for import-circles.test.ts and infra/folder-deps.test.ts. */
import { readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

/** The absolute paths a file's relative specifiers name: every import, export-from and import(), `import type` too. */
export function relativeImports(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
  return importedFiles
    .filter(({ fileName }) => fileName.startsWith("."))
    .map(({ fileName }) => path.resolve(path.dirname(file), fileName));
}

/** Circles as the nodes along each (first repeated last): one per back edge a depth-first walk meets; none when there are none. */
export function findCircles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const circles: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (node: string): void => {
    state.set(node, "open");
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === "open") circles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next) && graph.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, "done");
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return circles;
}
