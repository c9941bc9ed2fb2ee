/**
 * The infra/ folders depend on one another in one direction (issue 36): no folder but infra/local imports the dev
 * cluster's code (infra/build/release, infra/deploy/cloudflare, infra/deploy/node, infra/deploy/aws, infra/deploy/azure, infra/deploy/helm, infra/build/manifests and
 * the build tooling of infra/build/tools must run without it), and no two folders import each other, directly or through
 * others (a folder-level circle). Type-only imports, export-from and `import()` count.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../../infra/build/repo-root.ts";

const INFRA = path.join(REPO_ROOT, "infra");

/** One file under infra/ importing another: repository-relative paths with `/`. */
export interface InfraImport {
  from: string;
  to: string;
}

/** Every relative import between two .ts files under infra/. */
function readInfraImports(): InfraImport[] {
  const imports: InfraImport[] = [];
  for (const entry of readdirSync(INFRA, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".ts") || entry.name.endsWith(".d.ts")) continue;
    const file = path.join(entry.parentPath, entry.name);
    // preProcessFile lists every import, export-from and import() specifier, `import type` ones too.
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith(".")) continue;
      const target = path.resolve(path.dirname(file), fileName);
      if (!target.startsWith(INFRA + path.sep)) continue;
      const relative = (absolute: string): string => path.relative(REPO_ROOT, absolute).split(path.sep).join("/");
      imports.push({ from: relative(file), to: relative(target) });
    }
  }
  return imports;
}

/** `infra/local` for `infra/local/build.ts`; a file directly in infra/ (repo-root.ts) is its own node. */
export function folderOf(file: string): string {
  const parts = file.split("/");
  return parts.length > 2 ? parts.slice(0, 2).join("/") : file;
}

/** The imports of infra/local's files by files outside it, as `from imports to`. */
export function devClusterImports(imports: readonly InfraImport[]): string[] {
  return imports
    .filter(({ from, to }) => folderOf(from) !== "infra/local" && folderOf(to) === "infra/local")
    .map(({ from, to }) => `${from} imports ${to}`);
}

/**
 * Folder-level circles, one per back edge a depth-first walk of the folder graph meets, each as the folders along it
 * (first repeated last) followed by the file imports that make its edges; none when there are none.
 */
export function folderCircles(imports: readonly InfraImport[]): string[] {
  const edges = new Map<string, Map<string, string[]>>();
  for (const { from, to } of imports) {
    const [source, target] = [folderOf(from), folderOf(to)];
    if (source === target) continue;
    const targets = edges.get(source) ?? new Map<string, string[]>();
    targets.set(target, [...(targets.get(target) ?? []), `${from} imports ${to}`]);
    edges.set(source, targets);
  }
  const circles: string[] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (folder: string): void => {
    state.set(folder, "open");
    stack.push(folder);
    for (const next of [...(edges.get(folder)?.keys() ?? [])].sort()) {
      if (state.get(next) === "open") {
        const circle = [...stack.slice(stack.indexOf(next)), next];
        const files = circle.slice(1).flatMap((target, index) => edges.get(circle[index] ?? "")?.get(target) ?? []);
        circles.push(`${circle.join(" -> ")} (${files.join("; ")})`);
      } else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(folder, "done");
  };
  for (const folder of [...edges.keys()].sort()) if (!state.has(folder)) visit(folder);
  return circles;
}

describe("imports among the infra/ folders", () => {
  const imports = readInfraImports();

  it("are read", () => {
    expect(imports.length).toBeGreaterThan(20);
    expect(imports).toContainEqual({ from: "infra/build/release/release.ts", to: "infra/build/tools/go-build.ts" });
  });

  it("never reach the dev cluster (infra/local) from another folder", () => {
    expect(devClusterImports(imports)).toEqual([]);
  });

  it("form no folder-level circle", () => {
    expect(folderCircles(imports)).toEqual([]);
  });

  it("name the files of a dev-cluster import and of a circle through three folders", () => {
    const made = [
      { from: "infra/build/release/chart.ts", to: "infra/local/helm-runner.ts" },
      { from: "infra/local/stack-worker.ts", to: "infra/build/cloudflare/bundle-size.ts" },
      { from: "infra/build/cloudflare/bundle-size.ts", to: "infra/build/node/image.ts" },
      { from: "infra/build/node/image.ts", to: "infra/local/node-binary.ts" },
      { from: "infra/build/node/image.ts", to: "infra/build/repo-root.ts" },
      { from: "infra/local/a.ts", to: "infra/local/b.ts" },
    ];
    expect(devClusterImports(made)).toEqual([
      "infra/build/release/chart.ts imports infra/local/helm-runner.ts",
      "infra/build/node/image.ts imports infra/local/node-binary.ts",
    ]);
    expect(folderCircles(made)).toEqual([
      "infra/deploy/cloudflare -> infra/deploy/node -> infra/local -> infra/deploy/cloudflare (" +
        "infra/build/cloudflare/bundle-size.ts imports infra/build/node/image.ts; " +
        "infra/build/node/image.ts imports infra/local/node-binary.ts; " +
        "infra/local/stack-worker.ts imports infra/build/cloudflare/bundle-size.ts)",
    ]);
  });
});
