/**
 * A Worker's bundle for a release: what `wrangler deploy --env <fn> --dry-run` writes, made independent of where and
 * when it was built: wrangler's README (it carries the build time) is left out, and the source map's paths, which
 * wrangler writes relative to the output folder under an absolute `sourceRoot`, become relative to the repository.
 * The module itself is unchanged.
 */
import { readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { buildWorkerBundle } from "../cloudflare/bundle-size.ts";
import { REPO_ROOT } from "../repo-root.ts";

interface SourceMap {
  sourceRoot?: string;
  sources: string[];
}

/** Rewrites the source map `file` so that its sources are repository paths and its `sourceRoot` empty. */
export async function relativizeSourceMap(file: string, repoRoot = REPO_ROOT): Promise<void> {
  const map = JSON.parse(await readFile(file, "utf8")) as SourceMap;
  const root = path.resolve(path.dirname(file), map.sourceRoot ?? "");
  map.sources = map.sources.map((source) =>
    path.relative(repoRoot, path.resolve(root, source)).split(path.sep).join("/"),
  );
  map.sourceRoot = "";
  await writeFile(file, JSON.stringify(map));
}

/**
 * Builds the Worker of wrangler environment `env` into `outdir` for a release.
 * @throws Error with wrangler's output when the build fails.
 */
export async function buildReleaseWorker(env: string, outdir: string): Promise<void> {
  const entry = await buildWorkerBundle(env, outdir);
  await rm(path.join(outdir, "README.md"), { force: true });
  await relativizeSourceMap(`${entry}.map`);
}
