/**
 * `npm run build:node` (and `prestart`, with `--if-needed`): bundles the Node server, functions/node/index.ts, to
 * dist/node/server.mjs with its chunks and source maps, which `npm start` and the container image run (the maps
 * are read only under `NODE_OPTIONS=--enable-source-maps`), and the CLI beside it, dist/node/gmsa-webhooks.mjs, which
 * the image carries for `token eks|aks|gke` (a kubeconfig's exec plugin) and the operator commands. Takes well under a second and no network. `--if-needed` skips the build when the
 * bundle is newer than every file that went into it (the last build lists them in .cache/build/, so that dist/node/
 * holds nothing but what the image copies).
 */
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { REPO_ROOT } from "../repo-root.ts";
import { buildNodeTarget, bundleCli, CLI_BUNDLE, describeBundle } from "./bundle-function.ts";

const OUT = "dist/node";
const ENTRY = "server.mjs";
const INPUTS = path.join(REPO_ROOT, ".cache", "build", "node-inputs.json");
/** Besides the bundle's own inputs: what decides how it is built. */
const BUILD_FILES = ["infra/build/node/bundle-function.ts", "infra/build/node/build.ts", "package-lock.json"];

/** Modification time in ms, or undefined when the file is gone. */
async function modifiedMs(file: string): Promise<number | undefined> {
  try {
    return (await stat(path.resolve(REPO_ROOT, file))).mtimeMs;
  } catch {
    return undefined;
  }
}

/** Whether the last build is missing or older than one of its inputs. */
async function isStale(): Promise<boolean> {
  const built = await modifiedMs(path.join(OUT, ENTRY));
  if (built === undefined) return true;
  let inputs: string[];
  try {
    inputs = JSON.parse(await readFile(INPUTS, "utf8")) as string[];
  } catch {
    return true;
  }
  for (const input of [...inputs, ...BUILD_FILES]) {
    const modified = await modifiedMs(input);
    if (modified === undefined || modified > built) return true;
  }
  return false;
}

if (process.argv.includes("--if-needed") && !(await isStale())) process.exit(0);
const bundle = await buildNodeTarget("server", OUT);
// After the server: its build empties the folder.
const cli = await bundleCli(OUT);
const inputs = new Set([...Object.keys(bundle.metafile.inputs), ...cli.inputs]);
await mkdir(path.dirname(INPUTS), { recursive: true });
await writeFile(INPUTS, `${JSON.stringify([...inputs].sort())}\n`);
console.error(`${OUT}/${describeBundle(bundle)}; ${OUT}/${CLI_BUNDLE}: ${(cli.bytes / 1024).toFixed(1)} KiB`);
