/**
 * The release's files: reproducible zip and tar.gz archives of folders, and a `SHA256SUMS` that `sha256sum -c`
 * checks. Archives list their entries sorted, dated 2000-01-01 00:00 UTC (a zip cannot hold a date before 1980),
 * owned by root, with no extra per-run fields, so the same inputs give the same bytes
 * (https://reproducible-builds.org/docs/archives/).
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { readdir, readFile, rm, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { tarFolder } from "../node/oci-archive.ts";

const run = promisify(execFile);
/** 2000-01-01T00:00:00Z, every entry's date. */
const ENTRY_DATE = new Date(Date.UTC(2000, 0, 1));

/** The files under `folder`, relative to it, sorted; folders are not listed. */
async function listFiles(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(folder, path.join(entry.parentPath, entry.name)))
    .sort();
}

/**
 * Dates every file under `folder` 2000-01-01 00:00 UTC, the date every archive entry carries; `helm package` takes
 * its entries' dates from the files, so a chart dated this way packages to the same bytes.
 */
export async function dateFiles(folder: string, files?: string[]): Promise<void> {
  for (const file of files ?? (await listFiles(folder))) await utimes(path.join(folder, file), ENTRY_DATE, ENTRY_DATE);
}

/**
 * Zips the files of `folder` (changing their dates) into `output`, replacing it. File modes are kept (an
 * executable stays one); `-X` leaves out uid, gid and extended timestamps.
 * @throws Error when `zip` (Debian: zip) is missing.
 */
export async function zipFolder(folder: string, output: string): Promise<void> {
  const files = await listFiles(folder);
  await dateFiles(folder, files);
  await rm(output, { force: true });
  const child = run("zip", ["-q", "-X", "-D", output, "-@"], { cwd: folder, env: { ...process.env, TZ: "UTC" } });
  child.child.stdin!.end(`${files.join("\n")}\n`);
  await child;
}

/** Writes `folder`'s files as a gzip tar at `output`, reproducibly (the image layers' tar; gzip without name or date). */
export async function tarGzFolder(folder: string, output: string): Promise<void> {
  const tar = `${output}.tar`;
  await tarFolder(folder, tar, await listFiles(folder), ENTRY_DATE.getTime() / 1000);
  await writeFile(output, gzipSync(await readFile(tar), { level: 9 }));
  await rm(tar, { force: true });
}

/** `<sha256>  <name>` for each file (sorted by name), the format `sha256sum -c` reads. */
export async function writeChecksums(
  folder: string,
  names: string[],
  output = path.join(folder, "SHA256SUMS"),
): Promise<string> {
  const lines: string[] = [];
  for (const name of [...names].sort()) {
    const digest = createHash("sha256")
      .update(await readFile(path.join(folder, name)))
      .digest("hex");
    lines.push(`${digest}  ${name}`);
  }
  const text = `${lines.join("\n")}\n`;
  await writeFile(output, text);
  return text;
}
