/**
 * The Azure Functions package as `npm run build:azure` writes it (infra/build/azure/build.ts), which the release zips
 * after `npm ci --omit=dev`.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { buildAzure } from "../../../../infra/build/azure/build.ts";
import type { PackageLock } from "../../../../infra/build/azure/lockfile.ts";
import { REPO_ROOT } from "../../../../infra/build/repo-root.ts";
import { tempDir } from "../../../support/temp-dir.ts";
import { run } from "../../support/run.ts";

const AZURE = "node_modules/@azure/functions";

let out: string;
let repoLock: PackageLock;
let appPackage: { dependencies: Record<string, string> };
let appLock: PackageLock;

beforeAll(async () => {
  out = path.join(await tempDir("gmsa-azure-package-"), "azure-functions");
  await buildAzure(out);
  repoLock = JSON.parse(await readFile(path.join(REPO_ROOT, "package-lock.json"), "utf8")) as PackageLock;
  appPackage = JSON.parse(await readFile(path.join(out, "package.json"), "utf8")) as typeof appPackage;
  appLock = JSON.parse(await readFile(path.join(out, "package-lock.json"), "utf8")) as PackageLock;
});

describe("the Azure Functions package", () => {
  it("pins @azure/functions in package.json and package-lock.json to the repository lock's version", () => {
    const version = repoLock.packages[AZURE]!.version!;
    expect(version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(appPackage.dependencies).toEqual({ "@azure/functions": version });
    expect(appLock.packages[""]!.dependencies).toEqual({ "@azure/functions": version });
    expect(appLock.packages[AZURE]).toMatchObject({ version, integrity: repoLock.packages[AZURE]!.integrity });
  });

  it("locks every package @azure/functions needs at the repository lock's version and hash, none of them dev", () => {
    const folders = Object.keys(appLock.packages).filter((folder) => folder !== "");
    expect(folders.length).toBeGreaterThan(1);
    for (const folder of folders) {
      const entry = appLock.packages[folder]!;
      expect(entry.integrity).toMatch(/^sha512-/);
      expect(entry).toMatchObject({
        version: repoLock.packages[folder]!.version,
        integrity: repoLock.packages[folder]!.integrity,
      });
      expect(entry.dev).toBeUndefined();
    }
    for (const dependency of Object.keys(repoLock.packages[AZURE]!.dependencies ?? {})) {
      expect(folders.some((folder) => folder.endsWith(`node_modules/${dependency}`))).toBe(true);
    }
  });

  it("is what npm ci takes as it is: nothing to resolve or fetch", async () => {
    const cache = await tempDir("gmsa-npm-cache-");
    // --loglevel: under `npm run -s`, npm_config_loglevel=silent would hide the dry run's list.
    const flags = [
      "--omit=dev",
      "--dry-run",
      "--offline",
      "--ignore-scripts",
      "--no-audit",
      "--no-fund",
      "--loglevel=notice",
      "--cache",
      cache,
    ];
    const { stdout } = await run("npm", ["ci", ...flags], {
      cwd: out,
    });
    expect(stdout).toContain(`add @azure/functions ${appLock.packages[AZURE]!.version!}`);
  });
});
