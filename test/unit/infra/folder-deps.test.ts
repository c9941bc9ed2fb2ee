/**
 * infra/'s audiences (docs/development.md, Layout) depend one way: deploy/ holds no code; build/ never imports local/
 * (the release runs without the dev cluster); no two folders (build/'s sub-folders, local/ as a whole) import each
 * other, directly or through others. Type-only imports, export-from and `import()` count.
 */
import { describe, expect, it } from "vitest";
import { findCircles, importGraph, listFiles } from "../import-graph.ts";

const AUDIENCES = ["build", "deploy", "local"];
const CODE = /\.(ts|js|mjs|cjs)$/;

/** One file under infra/ importing another: repository-relative paths with `/`. */
export interface InfraImport {
  from: string;
  to: string;
}

/**
 * The folder a file counts in: `infra/local` for anything in the local cluster's package, `infra/build/node` for
 * `infra/build/node/build.ts`; a file directly in an audience folder (`infra/build/repo-root.ts`) is its own node.
 */
export function folderOf(file: string): string {
  const parts = file.split("/");
  if (parts[1] === "local") return "infra/local";
  return parts.length > 3 ? parts.slice(0, 3).join("/") : file;
}

/** The code files under infra/deploy, which holds only what operators apply. */
export function deployCode(files: readonly string[]): string[] {
  return files.filter((file) => file.startsWith("infra/deploy/") && CODE.test(file));
}

export function buildToLocalImports(imports: readonly InfraImport[]): string[] {
  return imports
    .filter(({ from, to }) => from.startsWith("infra/build/") && to.startsWith("infra/local/"))
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
  const graph = new Map([...edges].map(([folder, targets]) => [folder, [...targets.keys()].sort()]));
  return findCircles(graph).map((circle) => {
    const files = circle.slice(1).flatMap((target, index) => edges.get(circle[index] ?? "")?.get(target) ?? []);
    return `${circle.join(" -> ")} (${files.join("; ")})`;
  });
}

describe("the infra/ folders", () => {
  const files = listFiles(["infra"]);
  const imports = [...importGraph(files)].flatMap(([from, targets]) =>
    targets.filter((to) => to.startsWith("infra/")).map((to) => ({ from, to })),
  );

  it("are the three audiences, every file in one of them, and have their imports read", () => {
    expect([...new Set(files.map((file) => file.split("/")[1]))].sort()).toEqual(AUDIENCES);
    expect(imports.length).toBeGreaterThan(20);
    expect(imports).toContainEqual({ from: "infra/build/release/release.ts", to: "infra/build/tools/go-build.ts" });
    expect(imports).toContainEqual({ from: "infra/local/build.ts", to: "infra/build/tools/go-build.ts" });
  });

  it("keep code out of infra/deploy, never reach the local cluster from the build tooling, and form no folder circle", () => {
    expect(files.some((file) => file.startsWith("infra/deploy/"))).toBe(true);
    expect(deployCode(files)).toEqual([]);
    expect(buildToLocalImports(imports)).toEqual([]);
    expect(folderCircles(imports)).toEqual([]);
  });

  it("name the files of a forbidden import and of a circle through three folders", () => {
    const made = [
      { from: "infra/build/release/chart.ts", to: "infra/local/helm-runner.ts" },
      { from: "infra/local/stack-worker.ts", to: "infra/build/cloudflare/bundle-size.ts" },
      { from: "infra/build/cloudflare/bundle-size.ts", to: "infra/build/node/image.ts" },
      { from: "infra/build/node/image.ts", to: "infra/local/node-binary.ts" },
      { from: "infra/build/node/image.ts", to: "infra/build/repo-root.ts" },
      { from: "infra/local/a.ts", to: "infra/local/etcd/b.ts" },
    ];
    expect(buildToLocalImports(made)).toEqual([
      "infra/build/release/chart.ts imports infra/local/helm-runner.ts",
      "infra/build/node/image.ts imports infra/local/node-binary.ts",
    ]);
    expect(folderCircles(made)).toEqual([
      "infra/build/cloudflare -> infra/build/node -> infra/local -> infra/build/cloudflare (" +
        "infra/build/cloudflare/bundle-size.ts imports infra/build/node/image.ts; " +
        "infra/build/node/image.ts imports infra/local/node-binary.ts; " +
        "infra/local/stack-worker.ts imports infra/build/cloudflare/bundle-size.ts)",
    ]);
    expect(deployCode(["infra/deploy/crd/kustomization.yaml", "infra/deploy/aws/build.ts"])).toEqual([
      "infra/deploy/aws/build.ts",
    ]);
  });
});
