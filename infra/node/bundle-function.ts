/**
 * One esbuild bundle of a Node function entry (AWS Lambda, Azure Functions): our .ts sources and their packages in
 * a single ES module, so the platform's Node 24 needs neither type stripping nor node_modules (except the
 * `external` packages, which the platform's package must install).
 */
import { build } from "esbuild";
import { chmod, stat } from "node:fs/promises";
import path from "node:path";
import { REPO_ROOT } from "../repo-root.ts";

/** Options of {@link bundleNodeFunction}; relative paths are taken from the repository root. */
export interface BundleNodeFunctionOptions {
  entry: string;
  outfile: string;
  /** Packages left as imports (installed beside the bundle). Default none. */
  external?: string[];
}

/**
 * Bundles `entry` to `outfile` (ESM, Node 24, with a linked source map: set NODE_OPTIONS=--enable-source-maps).
 * @returns the bundle's size in bytes.
 */
export async function bundleNodeFunction(options: BundleNodeFunctionOptions): Promise<number> {
  const outfile = path.resolve(REPO_ROOT, options.outfile);
  await build({
    absWorkingDir: REPO_ROOT,
    entryPoints: [options.entry],
    outfile,
    bundle: true,
    platform: "node",
    target: "node24",
    format: "esm",
    sourcemap: "linked",
    external: options.external ?? [],
    // CommonJS packages inside an ES module bundle still call require() for Node built-ins.
    banner: { js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);' },
    logLevel: "warning",
  });
  return (await stat(outfile)).size;
}

/** The name of the CLI bundle beside a function's bundle. */
export const CLI_BUNDLE = "gmsa-webhooks.mjs";

/**
 * Bundles the `gmsa-webhooks` CLI into `<outDir>/gmsa-webhooks.mjs`, executable (it keeps the `#!/usr/bin/env node`
 * line), so a kubeconfig beside it can name `./gmsa-webhooks.mjs` as its exec command: `token eks|aks|gke` then
 * runs on a platform that has Node and nothing else (Lambda's nodejs24.x, Azure Functions).
 * @returns the bundle's size in bytes.
 */
export async function bundleCli(outDir: string): Promise<number> {
  const outfile = path.join(path.resolve(REPO_ROOT, outDir), CLI_BUNDLE);
  const bytes = await bundleNodeFunction({ entry: "functions/cli/gmsa-webhooks.ts", outfile });
  await chmod(outfile, 0o755);
  return bytes;
}
