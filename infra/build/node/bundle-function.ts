/**
 * esbuild bundles of the Node-based targets (the Node server, AWS Lambda, Azure Functions) and of the CLI: our .ts
 * sources and their packages as minified ES modules with linked source maps, so Node 24 needs neither type
 * stripping nor node_modules (except `external` packages, which the platform's package must install). Rarely used
 * modes sit behind dynamic `import()`: with splitting they become chunks beside the entry, loaded only when
 * configured.
 */
import { build, type BuildOptions, type Metafile } from "esbuild";
import { chmod, rm, stat } from "node:fs/promises";
import path from "node:path";
import { REPO_ROOT } from "../repo-root.ts";

/** Options of {@link bundleNodeFunction}; relative paths are taken from the repository root. */
export interface BundleNodeFunctionOptions {
  entry: string;
  /**
   * Where the entry and its chunks go (emptied first). The entry is `<outdir>/<name>.mjs`, chunks are
   * `chunk-<hash>.mjs`; each has a `.map` beside it.
   */
  outdir: string;
  /** The entry's file name without `.mjs`. Default `index`. */
  name?: string;
  /** Packages left as imports (installed beside the bundle). Default none. */
  external?: string[];
}

/** What {@link bundleNodeFunction} wrote. */
export interface NodeBundle {
  /** The entry's file name inside `outdir`. */
  entry: string;
  /** Every module written (entry and chunks), without source maps, relative to `outdir`. */
  files: string[];
  /** Their size in bytes, summed. */
  bytes: number;
  metafile: Metafile;
}

const ESBUILD_COMMON: BuildOptions = {
  absWorkingDir: REPO_ROOT,
  bundle: true,
  platform: "node",
  target: "node24",
  format: "esm",
  minify: true,
  sourcemap: "linked",
  // The source map keeps names, so stack traces under --enable-source-maps read as the .ts sources.
  legalComments: "none",
  // Stack traces need the mappings, not the sources: a third of the map's size, less to read at start.
  sourcesContent: false,
  // ES module builds where packages have them (fast-json-patch's `module`, yaml's build for browsers and Workers,
  // which the Worker bundles use too): esbuild can drop what is unused, and no CommonJS wrapper runs at load.
  mainFields: ["module", "main"],
  alias: { yaml: "./node_modules/yaml/browser/index.js" },
  logLevel: "warning",
};

/** Defines `require` in an ES module bundle, for the CommonJS code in it. */
const REQUIRE_SHIM: BuildOptions["banner"] = {
  js: 'import{createRequire as __createRequire}from"node:module";const require=__createRequire(import.meta.url);',
};

/**
 * Bundles `entry` into `outdir` (ESM, Node 24, minified, split into chunks at dynamic imports, linked source maps:
 * run with `node --enable-source-maps` or NODE_OPTIONS=--enable-source-maps).
 */
export async function bundleNodeFunction(options: BundleNodeFunctionOptions): Promise<NodeBundle> {
  const outdir = path.resolve(REPO_ROOT, options.outdir);
  const name = options.name ?? "index";
  const bundle = async (banner?: BuildOptions["banner"]) => {
    // Old chunks would otherwise pile up beside the new ones (their names change with their contents).
    await rm(outdir, { recursive: true, force: true });
    return build({
      ...ESBUILD_COMMON,
      entryPoints: { [name]: options.entry },
      outdir,
      splitting: true,
      outExtension: { ".js": ".mjs" },
      chunkNames: "chunk-[hash]",
      external: options.external ?? [],
      metafile: true,
      ...(banner === undefined ? {} : { banner }),
    });
  };
  let result = await bundle();
  // CommonJS packages (prom-client) require Node built-ins, which an ES module has no `require` for: esbuild's
  // require shim takes this one (evanw/esbuild#1921). Only bundles with CommonJS inside get it: it runs at the top of
  // every chunk, and the Lambda and Azure bundles have none (2 to 3 ms of a Lambda cold start's CPU).
  if (Object.values(result.metafile.inputs).some((input) => input.format === "cjs"))
    result = await bundle(REQUIRE_SHIM);
  const files = Object.keys(result.metafile.outputs)
    .filter((file) => file.endsWith(".mjs"))
    .map((file) => path.relative(outdir, path.resolve(REPO_ROOT, file)));
  let bytes = 0;
  for (const file of files) bytes += (await stat(path.join(outdir, file))).size;
  return { entry: `${name}.mjs`, files: files.sort(), bytes, metafile: result.metafile };
}

/** The Node-based deploy targets and what each bundle holds. */
export const NODE_TARGETS = {
  /** `npm start` and the container image: dist/node/server.mjs. */
  server: { entry: "functions/node/index.ts", name: "server", external: [] },
  /** `npm run build:lambda`: dist/aws-lambda/index.mjs, handler `index.handler`. */
  lambda: { entry: "functions/aws-lambda/index.ts", name: "index", external: [] },
  /** `npm run build:azure`: dist/azure-functions/index.mjs; the Functions host hooks into the real @azure/functions. */
  azure: { entry: "functions/azure-functions/index.ts", name: "index", external: ["@azure/functions"] },
} as const satisfies Record<string, { entry: string; name: string; external: readonly string[] }>;

export type NodeTarget = keyof typeof NODE_TARGETS;

/** Issue 12's budget for a function platform's bundle (Lambda, Azure), every chunk counted, source maps not. */
export const FUNCTION_BUNDLE_LIMIT_BYTES = 600 * 1024;

/** Bundles one target into `outdir` (relative to the repository root, or absolute). */
export function buildNodeTarget(target: NodeTarget, outdir: string): Promise<NodeBundle> {
  const { entry, name, external } = NODE_TARGETS[target];
  return bundleNodeFunction({ entry, outdir, name, external: [...external] });
}

/**
 * What a cold start loads: the entry and the chunks it imports statically, transitively (not those behind a
 * dynamic `import()`), with the source files bundled into them.
 */
export function loadedAtStart(bundle: NodeBundle): { files: string[]; bytes: number; inputs: string[] } {
  const outputs = new Map(
    Object.entries(bundle.metafile.outputs).map(([file, output]) => [path.resolve(REPO_ROOT, file), output]),
  );
  const entry = [...outputs.keys()].find((file) => file.endsWith(`${path.sep}${bundle.entry}`));
  const seen = new Set<string>();
  const visit = (file: string): void => {
    const output = outputs.get(file);
    if (output === undefined || seen.has(file)) return;
    seen.add(file);
    for (const imported of output.imports)
      if (imported.kind === "import-statement" && !imported.external) visit(path.resolve(REPO_ROOT, imported.path));
  };
  if (entry !== undefined) visit(entry);
  const loaded = [...seen].map((file) => outputs.get(file)!);
  return {
    files: [...seen].map((file) => path.basename(file)).sort(),
    bytes: loaded.reduce((sum, output) => sum + output.bytes, 0),
    inputs: [...new Set(loaded.flatMap((output) => Object.keys(output.inputs)))].sort(),
  };
}

/** One line for a build's output: `index.mjs and 4 chunks: 301.2 KiB (source maps beside them)`. */
export function describeBundle(bundle: NodeBundle): string {
  const chunks = bundle.files.length - 1;
  return `${bundle.entry}${chunks > 0 ? ` and ${chunks} chunk${chunks === 1 ? "" : "s"}` : ""}: ${(bundle.bytes / 1024).toFixed(1)} KiB (source maps beside them)`;
}

/** The name of the CLI bundle beside a function's bundle. */
export const CLI_BUNDLE = "gmsa-webhooks.mjs";

/**
 * Bundles the `gmsa-webhooks` CLI into `<outDir>/gmsa-webhooks.mjs`, one file, executable (it keeps the
 * `#!/usr/bin/env node` line), so a kubeconfig beside it can name `./gmsa-webhooks.mjs` as its exec command:
 * `token eks|aks|gke` then runs on a platform that has Node and nothing else (Lambda's nodejs24.x, Azure Functions,
 * the container image as `node /app/dist/node/gmsa-webhooks.mjs`).
 * @returns the bundle's size in bytes and the source files that went into it (for staleness checks).
 */
export async function bundleCli(outDir: string): Promise<{ bytes: number; inputs: string[] }> {
  const outfile = path.join(path.resolve(REPO_ROOT, outDir), CLI_BUNDLE);
  const result = await build({
    ...ESBUILD_COMMON,
    entryPoints: ["cli/gmsa-webhooks.ts"],
    outfile,
    metafile: true,
  });
  await chmod(outfile, 0o755);
  return { bytes: (await stat(outfile)).size, inputs: Object.keys(result.metafile.inputs) };
}
