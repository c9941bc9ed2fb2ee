/** The release's archives and checksums (infra/build/release/archive.ts). */
import { chmod, mkdir, readFile, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tarGzFolder, writeChecksums, zipFolder } from "../../../../infra/build/release/archive.ts";
import { tempDir } from "../../../support/temp-dir.ts";
import { run } from "../../support/run.ts";

/** A folder with a nested file and an executable, dated `date`. */
async function makeFolder(date: Date): Promise<string> {
  const folder = await tempDir("release-archive-");
  await mkdir(path.join(folder, "sub"));
  await writeFile(path.join(folder, "b.txt"), "b\n");
  await writeFile(path.join(folder, "sub", "a.txt"), "a\n");
  await writeFile(path.join(folder, "tool"), "#!/bin/sh\n");
  await chmod(path.join(folder, "tool"), 0o755);
  for (const file of ["b.txt", "sub/a.txt", "tool"]) await utimes(path.join(folder, file), date, date);
  return folder;
}

describe.each([
  ["zipFolder", zipFolder, "x.zip"],
  ["tarGzFolder", tarGzFolder, "x.tar.gz"],
] as const)("%s", (_, write, name) => {
  it("writes the same bytes for the same files whatever their dates", async () => {
    const [one, two] = [path.join(await tempDir(), name), path.join(await tempDir(), name)];
    await write(await makeFolder(new Date("2020-05-01T10:00:00Z")), one);
    await write(await makeFolder(new Date("2024-09-09T23:59:00Z")), two);
    expect(await readFile(one)).toEqual(await readFile(two));
  });
});

it("zipFolder lists the files sorted, dated 2000-01-01, with the executable kept executable", async () => {
  const zip = path.join(await tempDir(), "x.zip");
  await zipFolder(await makeFolder(new Date()), zip);
  const { stdout } = await run("zipinfo", ["-T", zip]);
  const lines = stdout.split("\n").filter((line) => /^[-d]r/.test(line));
  expect(lines.map((line) => line.split(/\s+/).at(-1))).toEqual(["b.txt", "sub/a.txt", "tool"]);
  for (const line of lines) expect(line).toContain("20000101.000000");
  expect(lines[2]).toMatch(/^-rwxr-xr-x/);
});

it("tarGzFolder writes every file owned by root", async () => {
  const tar = path.join(await tempDir(), "x.tar.gz");
  await tarGzFolder(await makeFolder(new Date()), tar);
  const { stdout } = await run("tar", ["-tzvf", tar]);
  const lines = stdout.trim().split("\n");
  expect(lines.map((line) => line.split(/\s+/)[1])).toEqual(["0/0", "0/0", "0/0"]);
});

describe("writeChecksums", () => {
  it("writes what sha256sum -c verifies, and fails it when a file changes", async () => {
    const folder = await makeFolder(new Date());
    await writeChecksums(folder, ["tool", "b.txt"]);
    expect((await readFile(path.join(folder, "SHA256SUMS"), "utf8")).split("\n")[0]).toMatch(
      /^[0-9a-f]{64} {2}b\.txt$/,
    );
    await run("sha256sum", ["-c", "SHA256SUMS"], { cwd: folder });
    await writeFile(path.join(folder, "tool"), "changed\n");
    const failed = await run("sha256sum", ["-c", "SHA256SUMS"], { cwd: folder }).then(
      () => "",
      (error: { stdout: string }) => error.stdout,
    );
    expect(failed).toContain("tool: FAILED");
  });
});
