/**
 * `npm run build:azure`: writes dist/azure-functions/, a Functions app folder ready for `npm ci --omit=dev` and
 * `func azure functionapp publish`: index.mjs (the bundle, with its chunks and source maps), gmsa-webhooks.mjs (the
 * CLI, the kubeconfig's exec plugin `token aks`), host.json (no route prefix), a package.json whose only dependency
 * is @azure/functions, which must stay a real package because the Functions host hooks into it at run time, and the
 * package-lock.json that pins it and what it needs to the repository's package-lock.json (lockfile.ts).
 */
import { copyFile, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { bundleCli, buildNodeTarget, CLI_BUNDLE, describeBundle } from "../node/bundle-function.ts";
import { REPO_ROOT } from "../repo-root.ts";
import { cutLock, type PackageLock } from "./lockfile.ts";

const OUT = "dist/azure-functions";
const AZURE_PACKAGE = "@azure/functions";
const APP_NAME = "gmsa-webhooks-azure-functions";

async function readJson<T>(file: string): Promise<T> {
  return JSON.parse(await readFile(path.join(REPO_ROOT, file), "utf8")) as T;
}

/**
 * Writes the app into `outDir` (relative to the repository root, or absolute) and returns the @azure/functions
 * version it pins. A devDependency of the repository (the build and tests need its types), a dependency of the app.
 */
export async function buildAzure(outDir: string = OUT): Promise<{ azureFunctions: string; summary: string }> {
  const rootPackage = await readJson<{ version: string; devDependencies: Record<string, string> }>("package.json");
  if (rootPackage.devDependencies[AZURE_PACKAGE] === undefined)
    throw new Error(`${AZURE_PACKAGE} is not a devDependency in package.json`);
  const { version, lock } = cutLock(await readJson<PackageLock>("package-lock.json"), {
    name: APP_NAME,
    version: rootPackage.version,
    dependency: AZURE_PACKAGE,
  });

  const out = path.resolve(REPO_ROOT, outDir);
  const bundle = await buildNodeTarget("azure", out);
  const cli = await bundleCli(out);
  await copyFile(path.join(REPO_ROOT, "functions/azure-functions/host.json"), path.join(out, "host.json"));
  const appPackage = {
    name: APP_NAME,
    version: rootPackage.version,
    private: true,
    type: "module",
    main: "index.mjs",
    engines: { node: ">=24" },
    // Exact, as the lock has it: npm ci refuses a package.json and a lock that disagree.
    dependencies: { [AZURE_PACKAGE]: version },
  };
  await writeFile(path.join(out, "package.json"), `${JSON.stringify(appPackage, null, 2)}\n`);
  await writeFile(path.join(out, "package-lock.json"), `${JSON.stringify(lock, null, 2)}\n`);
  const summary = `${describeBundle(bundle)}, ${CLI_BUNDLE} ${(cli.bytes / 1024).toFixed(1)} KiB, host.json, package.json and package-lock.json (${AZURE_PACKAGE} ${version})`;
  return { azureFunctions: version, summary };
}

if (import.meta.main) {
  const { summary } = await buildAzure();
  console.log(`${OUT}/: ${summary} (then: cd ${OUT} && npm ci --omit=dev)`);
}
