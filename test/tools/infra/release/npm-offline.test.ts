/**
 * `npm run release` and the network (infra/build/release/release.ts): the Azure package's `npm ci`, run on a
 * one-package project with a cache of its own and a registry address where nothing listens.
 */
import { createHash } from "node:crypto";
import { access, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { npmCiAzure } from "../../../../infra/build/release/release.ts";
import { tempDir } from "../../../support/temp-dir.ts";
import { run } from "../../support/run.ts";

const saved = { ...process.env };

/** A project locking `tiny@1.0.0` (from the unreachable registry), and the package's tarball. */
async function project(): Promise<{ dir: string; tarball: string }> {
  const dir = await tempDir();
  const pkg = path.join(dir, "tiny");
  await mkdir(pkg);
  await writeFile(path.join(pkg, "package.json"), JSON.stringify({ name: "tiny", version: "1.0.0" }));
  await writeFile(path.join(pkg, "index.js"), "module.exports = 1;\n");
  // npm pack caches what it packs: a throwaway cache keeps the test's own empty.
  const packCache = path.join(dir, "pack-cache");
  await run("npm", ["pack", "--pack-destination", dir, "--loglevel=error"], {
    cwd: pkg,
    env: { ...process.env, npm_config_cache: packCache },
  });
  const tarball = path.join(dir, "tiny-1.0.0.tgz");
  const integrity = `sha512-${createHash("sha512")
    .update(await readFile(tarball))
    .digest("base64")}`;
  const app = path.join(dir, "app");
  await mkdir(app);
  await writeFile(
    path.join(app, "package.json"),
    JSON.stringify({ name: "app", version: "1.0.0", private: true, dependencies: { tiny: "1.0.0" } }),
  );
  const lock = {
    name: "app",
    version: "1.0.0",
    lockfileVersion: 3,
    requires: true,
    packages: {
      "": { name: "app", version: "1.0.0", dependencies: { tiny: "1.0.0" } },
      "node_modules/tiny": { version: "1.0.0", resolved: "http://127.0.0.1:9/tiny/-/tiny-1.0.0.tgz", integrity },
    },
  };
  await writeFile(path.join(app, "package-lock.json"), JSON.stringify(lock));
  return { dir: app, tarball };
}

beforeEach(async () => {
  // A cache of the test's own, and a registry where nothing listens: any request fails at once.
  process.env["npm_config_cache"] = path.join(await tempDir(), "cache");
  process.env["npm_config_registry"] = "http://127.0.0.1:9/";
});

afterEach(() => {
  process.env = { ...saved };
});

describe("the Azure package's npm ci", () => {
  it("installs from npm's cache when the cache holds every package, with no registry", async () => {
    const { dir, tarball } = await project();
    await run("npm", ["cache", "add", tarball, "--loglevel=error"]);
    await npmCiAzure(dir);
    await expect(access(path.join(dir, "node_modules", "tiny", "index.js"))).resolves.toBeUndefined();
  });

  it("says it needs the npm registry when the cache lacks a package and no registry answers", async () => {
    const { dir } = await project();
    await expect(npmCiAzure(dir)).rejects.toThrow("the Azure package's npm ci needs the npm registry");
  }, 60_000);
});
