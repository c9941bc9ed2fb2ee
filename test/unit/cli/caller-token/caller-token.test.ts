import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from "jose";
import { describe, expect, it } from "vitest";
import { runCallerTokenCommand } from "../../../../cli/caller-token/caller-token.ts";
import { fakeIo } from "../../../support/fake-io.ts";
import { tempDir } from "../../../support/temp-dir.ts";

/** keygen into a fresh folder: the key's path and the JWKS printed. */
async function keygen(alg?: string): Promise<{ key: string; jwks: JSONWebKeySet }> {
  const key = path.join(await tempDir("gmsa-caller-token-"), "keys/caller-key.pem");
  const io = fakeIo();
  expect(await runCallerTokenCommand(["keygen", "--key", key, ...(alg ? ["--alg", alg] : [])], io)).toBe(0);
  expect(io.err).toBe("");
  return { key, jwks: JSON.parse(io.out) as JSONWebKeySet };
}

describe("gmsa-webhooks caller-token", () => {
  it("keygen writes an owner-only PKCS#8 key and prints only its public JWKS; jwks prints the same", async () => {
    const { key, jwks } = await keygen();
    expect((await stat(key)).mode & 0o777).toBe(0o600);
    const pem = await readFile(key, "utf8");
    expect(pem).toContain("-----BEGIN PRIVATE KEY-----");
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toMatchObject({ kty: "EC", alg: "ES256" });
    expect(jwks.keys[0]).not.toHaveProperty("d");
    const io = fakeIo({ files: { [key]: pem } });
    expect(await runCallerTokenCommand(["jwks", "--key", key], io)).toBe(0);
    expect(JSON.parse(io.out)).toEqual(jwks);
  });

  it("keygen refuses a --key that exists (1), naming it and --force, and replaces it with --force", async () => {
    const { key, jwks } = await keygen();
    const live = await readFile(key, "utf8");
    const refused = fakeIo();
    expect(await runCallerTokenCommand(["keygen", "--key", key], refused)).toBe(1);
    expect(refused.err).toBe(`gmsa-webhooks caller-token: ${key} exists; keygen replaces a key only with --force\n`);
    expect(refused.out).toBe("");
    expect(await readFile(key, "utf8")).toBe(live);
    const forced = fakeIo();
    expect(await runCallerTokenCommand(["keygen", "--key", key, "--force"], forced)).toBe(0);
    expect(await readFile(key, "utf8")).not.toBe(live);
    expect((await stat(key)).mode & 0o777).toBe(0o600);
    expect((JSON.parse(forced.out) as JSONWebKeySet).keys[0]!.kid).not.toBe(jwks.keys[0]!.kid);
  });

  it("mint writes a token the JWKS verifies, with iss, aud, sub, the key id and --ttl, mode 0600", async () => {
    const { key, jwks } = await keygen();
    const out = path.join(path.dirname(key), "../token/caller.jwt");
    const io = fakeIo({ files: { [key]: await readFile(key, "utf8") } });
    const args = ["mint", "--key", key, "--issuer", "iss-1", "--audience", "aud-1", "--ttl", "300", "--out", out];
    expect(await runCallerTokenCommand(args, io)).toBe(0);
    expect(io).toMatchObject({ out: "", err: "" });
    expect((await stat(out)).mode & 0o777).toBe(0o600);
    const { payload, protectedHeader } = await jwtVerify(await readFile(out, "utf8"), createLocalJWKSet(jwks), {
      issuer: "iss-1",
      audience: "aud-1",
    });
    expect(payload.sub).toBe("system:kube-apiserver");
    expect(payload.exp! - payload.iat!).toBe(300);
    expect(protectedHeader.kid).toBe(jwks.keys[0]!.kid);
  });

  it.each([
    ["no action", [], /missing action: one of keygen, jwks, mint/],
    ["an unknown action", ["sign", "--key", "k"], /expected one action \(keygen, jwks, mint\), got "sign"/],
    [
      "mint without its flags",
      ["mint", "--key", "k"],
      /mint needs --issuer[^]*mint needs --audience[^]*mint needs --out/,
    ],
    ["a flag of mint on keygen", ["keygen", "--key", "k", "--out", "t"], /--out does not apply to keygen/],
    [
      "--force on mint",
      ["mint", "--key", "k", "--issuer", "i", "--audience", "a", "--out", "t", "--force"],
      /--force does not apply to mint/,
    ],
    [
      "a --ttl out of range",
      ["mint", "--key", "k", "--issuer", "i", "--audience", "a", "--out", "t", "--ttl", "30"],
      /--ttl must be 60 to 86400 seconds, got "30"/,
    ],
    ["an unknown option", ["jwks", "--kye", "k"], /Unknown option '--kye'/],
  ])("exits 2 on %s", async (_, args, message) => {
    const io = fakeIo();
    expect(await runCallerTokenCommand(args, io)).toBe(2);
    expect(io.out).toBe("");
    expect(io.err).toMatch(message);
    expect(io.err).toMatch(/Run 'gmsa-webhooks caller-token --help' for usage\.\n$/);
  });

  it("exits 1 in one line for a key it cannot read or use, without printing the key", async () => {
    const missing = fakeIo();
    expect(await runCallerTokenCommand(["jwks", "--key", "nope.pem"], missing)).toBe(1);
    expect(missing.err).toBe("gmsa-webhooks caller-token: nope.pem: cannot be read (ENOENT)\n");
    const secret = "-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n";
    const garbage = fakeIo({ files: { "k.pem": secret } });
    expect(await runCallerTokenCommand(["jwks", "--key", "k.pem"], garbage)).toBe(1);
    expect(garbage.err).toMatch(/^gmsa-webhooks caller-token: [^\n]+\n$/);
    expect(garbage.err).not.toContain("bm90IGEga2V5");
    expect(garbage.out).toBe("");
  });
});
