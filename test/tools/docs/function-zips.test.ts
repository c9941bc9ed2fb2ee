/** The function zips the install guides build: their packaging lines, run twice as an update runs them. */
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { functionPackageName } from "../../../infra/build/release/release.ts";
import { tempDir } from "../../support/temp-dir.ts";
import { readRepoFile, shellBlocks } from "../../support/guide-text.ts";
import { runBash, standIns } from "../../support/run-child.ts";
import { run } from "../support/run.ts";

/** The lines of the guide's `sh` blocks that match `pattern`, one string per block that has any. */
async function packagingLines(guide: string, pattern: RegExp): Promise<string[]> {
  return shellBlocks(await readRepoFile(guide))
    .map((block) =>
      block
        .split("\n")
        .filter((line) => pattern.test(line))
        .join("\n"),
    )
    .filter((lines) => lines !== "");
}

/** Writes `files` (name -> text) as the only contents of `folder`. */
async function writeBuild(folder: string, files: Record<string, string>): Promise<void> {
  await rm(folder, { recursive: true, force: true });
  await mkdir(folder, { recursive: true });
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(folder, name), text);
}

/** The entries of a zip, sorted. */
async function zipEntries(zip: string): Promise<string[]> {
  return (await run("unzip", ["-Z1", zip])).stdout
    .split("\n")
    .filter((line) => line !== "")
    .sort();
}

describe("docs/install-aws-lambda.md: the package", () => {
  it("is written anew by install and update alike: an earlier build's chunks are not in it", async () => {
    const lines = await packagingLines("docs/install-aws-lambda.md", /zip -qr/);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe(lines[0]);
    const dir = await tempDir("gmsa-lambda-zip-");
    await writeFile(path.join(dir, "kubeconfig.yaml"), "apiVersion: v1\n");
    const folder = path.join(dir, "dist/aws-lambda");
    await writeBuild(folder, { "index.mjs": "1", "chunk-OLD.mjs": "1" });
    await runBash(lines[0]!, { cwd: dir });
    // npm run build:lambda empties the folder; the next build's chunks have other names.
    await writeBuild(folder, { "index.mjs": "2", "chunk-NEW.mjs": "2" });
    await runBash(lines[1]!, { cwd: dir });
    expect(await zipEntries(path.join(dir, "dist/gmsa-lambda.zip"))).toEqual([
      "chunk-NEW.mjs",
      "index.mjs",
      "kubeconfig.yaml",
    ]);
  });
});

describe("docs/install-azure-functions.md: the package", () => {
  const GUIDE = "docs/install-azure-functions.md";

  it("is the release's gmsa-webhooks-azure-functions-<version>.zip, written anew, and the rollback names one", async () => {
    const blocks = await packagingLines(GUIDE, /^package=|zip -qr/);
    expect(blocks).toHaveLength(2);
    expect(blocks[1]).toBe(blocks[0]);
    const dir = await tempDir("gmsa-azure-zip-");
    // Stand-ins: `npm pkg get version` prints the version as npm does (JSON); `npm ci --omit=dev` adds the package.
    const npm =
      '#!/bin/sh\ncase "$1" in pkg) echo \'"0.2.0"\';; ci) mkdir -p node_modules/@azure/functions && echo x > node_modules/@azure/functions/index.js;; esac\n';
    const env = { PATH: await standIns(dir, { npm }, "/usr/bin:/bin") };
    const folder = path.join(dir, "dist/azure-functions");
    await writeBuild(folder, { "index.mjs": "1", "chunk-OLD.mjs": "1", "kubeconfig.yaml": "apiVersion: v1\n" });
    await runBash(blocks[0]!, { cwd: dir, env });
    await writeBuild(folder, { "index.mjs": "2", "chunk-NEW.mjs": "2", "kubeconfig.yaml": "apiVersion: v1\n" });
    await runBash(blocks[1]!, { cwd: dir, env });
    const zip = path.join(dir, "dist", functionPackageName("azure-functions", "0.2.0"));
    expect((await zipEntries(zip)).filter((entry) => !entry.endsWith("/"))).toEqual([
      "chunk-NEW.mjs",
      "index.mjs",
      "kubeconfig.yaml",
      "node_modules/@azure/functions/index.js",
    ]);

    // Every zip the guide publishes is that one, or an earlier version's under the same name.
    const text = await readRepoFile(GUIDE);
    const sources = [...text.matchAll(/--src (\S+)/g)].map((match) => match[1]!);
    expect(sources.length).toBeGreaterThanOrEqual(3);
    for (const source of sources) {
      if (source === '"$package"') continue;
      const version = /(\d+\.\d+\.\d+)\.zip$/.exec(source)?.[1];
      expect(source).toBe(`dist/${functionPackageName("azure-functions", version ?? "<version>")}`);
    }
    expect(sources).toContain(`dist/${functionPackageName("azure-functions", "0.1.0")}`);
  });
});
