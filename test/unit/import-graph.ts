/** Reading and walking import graphs, for import-circles.test.ts and infra/folder-deps.test.ts. */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { REPO_ROOT } from "../../infra/build/repo-root.ts";

const repoPath = (absolute: string): string => path.relative(REPO_ROOT, absolute).split(path.sep).join("/");

/** Every file under the repository's `folders`, repository-relative with `/`. */
export function listFiles(folders: readonly string[]): string[] {
  return folders.flatMap((folder) =>
    readdirSync(path.join(REPO_ROOT, folder), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => repoPath(path.join(entry.parentPath, entry.name))),
  );
}

/** Each .ts file of `files` (not .d.ts) and the files it imports by relative specifier, all repository-relative. */
export function importGraph(files: readonly string[]): Map<string, string[]> {
  return new Map(
    files
      .filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"))
      .map((file) => [file, [...new Set(relativeImports(path.join(REPO_ROOT, file)).map(repoPath))]]),
  );
}

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
