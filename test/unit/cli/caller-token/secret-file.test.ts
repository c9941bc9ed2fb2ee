import { mkdir, readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { writeSecretFile } from "../../../../cli/caller-token/secret-file.ts";
import { tempDir } from "../../../support/temp-dir.ts";

const mode = async (file: string) => (await stat(file)).mode & 0o777;

describe("writeSecretFile", () => {
  it("creates a missing folder (0700) and its parents, and writes the file owner-only (0600)", async () => {
    const root = await tempDir("gmsa-secret-file-");
    const file = path.join(root, "etc/kubernetes/gmsa-webhooks/caller.jwt");
    await writeSecretFile(file, "token-1");
    expect(await readFile(file, "utf8")).toBe("token-1");
    expect(await mode(file)).toBe(0o600);
    expect(await mode(path.dirname(file))).toBe(0o700);
  });

  it("replaces the file in a folder that exists, leaving the folder's mode and no temporary file", async () => {
    const root = await tempDir("gmsa-secret-file-");
    await mkdir(path.join(root, "shared"), { mode: 0o755 });
    const file = path.join(root, "shared/caller-key.pem");
    await writeSecretFile(file, "old");
    await writeSecretFile(file, "new");
    expect(await readFile(file, "utf8")).toBe("new");
    expect(await mode(file)).toBe(0o600);
    expect(await mode(path.join(root, "shared"))).toBe(0o755);
    expect(await readdir(path.join(root, "shared"))).toEqual(["caller-key.pem"]);
  });

  it("with replace: false, writes a new file but leaves one that exists, throwing EEXIST and no temporary file", async () => {
    const root = await tempDir("gmsa-secret-file-");
    const file = path.join(root, "keys/caller-key.pem");
    await writeSecretFile(file, "live", { replace: false });
    expect(await readFile(file, "utf8")).toBe("live");
    expect(await mode(file)).toBe(0o600);
    await expect(writeSecretFile(file, "other", { replace: false })).rejects.toMatchObject({ code: "EEXIST" });
    expect(await readFile(file, "utf8")).toBe("live");
    expect(await readdir(path.dirname(file))).toEqual(["caller-key.pem"]);
  });
});
