/**
 * CHANGELOG.md holds a section for package.json's version: the release workflow takes the release's notes from it
 * and fails without one.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readPackageVersion } from "../../../../infra/build/release/version.ts";
import { REPO_ROOT } from "../../../../infra/build/repo-root.ts";

describe("CHANGELOG.md", () => {
  it("has a section for package.json's semantic version and an Unreleased section above it", async () => {
    const changelog = await readFile(path.join(REPO_ROOT, "CHANGELOG.md"), "utf8");
    const headings = [...changelog.matchAll(/^## \[([^\]]+)\]/gm)].map((match) => match[1]);
    expect(headings[0]).toBe("Unreleased");
    const version = await readPackageVersion();
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    expect(headings).toContain(version);
  });
});
