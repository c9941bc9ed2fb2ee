/** Section A: the Node bundles `npm run build` writes, raw and gzipped, and what a cold start loads of them. */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { buildNodeTarget, loadedAtStart, type NodeTarget } from "../../infra/build/node/bundle-function.ts";
import { kib, printTable } from "./table.ts";

/** A Node target's bundle as its build writes it: every .mjs file the folder holds (entry and split chunks). */
export interface NodeBundleSize {
  target: NodeTarget;
  files: number;
  rawBytes: number;
  /** Each file gzipped on its own and summed. */
  gzipBytes: number;
  /** The entry and the chunks it imports statically: what a cold start loads. */
  loadedRawBytes: number;
}

/** Builds `target` into `<dir>/<target>/` with the project's build and measures it. */
export async function measureNodeBundle(dir: string, target: NodeTarget): Promise<NodeBundleSize> {
  const outdir = path.join(dir, target);
  const bundle = await buildNodeTarget(target, outdir);
  let gzipBytes = 0;
  for (const file of bundle.files) gzipBytes += gzipSync(await readFile(path.join(outdir, file))).length;
  return {
    target,
    files: bundle.files.length,
    rawBytes: bundle.bytes,
    gzipBytes,
    loadedRawBytes: loadedAtStart(bundle).bytes,
  };
}

export function printNodeBundles(sizes: readonly NodeBundleSize[]): void {
  printTable(
    "A. Node-based bundles (npm run build: minified ES modules, split at rarely used modes; source maps not counted)",
    ["target", "files", "raw KiB", "gzip KiB", "loaded at start, raw KiB"],
    sizes.map((s) => [s.target, s.files, kib(s.rawBytes), kib(s.gzipBytes), kib(s.loadedRawBytes)]),
  );
}
