/**
 * `npm run build:azure`: writes dist/azure-functions/, a Functions app folder ready for
 * `npm install --omit=dev` and `func azure functionapp publish`: index.mjs (the bundle, with its chunks and source
 * maps), gmsa-webhooks.mjs (the CLI, the kubeconfig's exec plugin `token aks`), host.json (no route prefix) and a
 * package.json whose only dependency is @azure/functions, which must stay a real package because the Functions host hooks into it at run time.
 */
import { copyFile, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { bundleCli, buildNodeTarget, CLI_BUNDLE, describeBundle } from "../node/bundle-function.ts";
import { REPO_ROOT } from "../repo-root.ts";

const OUT = "dist/azure-functions";
const AZURE_PACKAGE = "@azure/functions";

const rootPackage = JSON.parse(await readFile(path.join(REPO_ROOT, "package.json"), "utf8")) as {
  version: string;
  devDependencies: Record<string, string>;
};
// A devDependency of the repository (the build and tests need its types), a dependency of the Azure app it writes.
const range = rootPackage.devDependencies[AZURE_PACKAGE];
if (range === undefined) throw new Error(`${AZURE_PACKAGE} is not a devDependency in package.json`);

const bundle = await buildNodeTarget("azure", OUT);
const cli = await bundleCli(OUT);
await copyFile(path.join(REPO_ROOT, "functions/azure-functions/host.json"), path.join(REPO_ROOT, OUT, "host.json"));
const appPackage = {
  name: "gmsa-webhooks-azure-functions",
  version: rootPackage.version,
  private: true,
  type: "module",
  main: "index.mjs",
  engines: { node: ">=24" },
  dependencies: { [AZURE_PACKAGE]: range },
};
await writeFile(path.join(REPO_ROOT, OUT, "package.json"), `${JSON.stringify(appPackage, null, 2)}\n`);
console.log(`${OUT}/: ${describeBundle(bundle)}, ${CLI_BUNDLE} ${(cli.bytes / 1024).toFixed(1)} KiB, host.json, package.json (then: cd ${OUT} && npm install --omit=dev)`);
