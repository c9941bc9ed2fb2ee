import { readFile } from "node:fs/promises";
import path from "node:path";
import { exportPKCS8, generateKeyPair, jwtVerify, createLocalJWKSet, type JSONWebKeySet } from "jose";
import { describe, expect, it } from "vitest";
import { runJwtIssuerCommand } from "../../../cli/jwt-issuer.ts";
import { createJwtTokenSource } from "../../../shared/credentials/jwt.ts";
import { isTokenCredential } from "../../../shared/credentials/token-source.ts";
import { fakeIo } from "../../support/fake-io.ts";
import { tempDir } from "../../support/temp-dir.ts";

const ISSUER = "https://gmsa-issuer.example.com";

describe("gmsa-webhooks jwt-issuer", () => {
  const AUDIENCE = "https://kubernetes.example.com";
  const flags = ["--issuer", ISSUER, "--audience", AUDIENCE, "--subject", "gmsa-webhooks-expand"];

  it("writes a discovery document and a JWKS that verify the Worker's tokens, prints the authenticator entry (0), never the private key", async () => {
    const { privateKey } = await generateKeyPair("ES256", { extractable: true });
    const pem = await exportPKCS8(privateKey);
    const outDir = await tempDir("gmsa-issuer-cmd-");
    const io = fakeIo({ files: { "key.pem": pem } });
    expect(await runJwtIssuerCommand(["--key", "key.pem", "--alg", "ES256", ...flags, "--out", outDir], io)).toBe(0);
    expect(io.err).toBe("");
    expect(io.out).toContain(`wrote ${path.join(outDir, ".well-known/openid-configuration")} and `);
    expect(io.out).toContain(`url: ${ISSUER}`);
    expect(io.out).toContain(`audiences: [${AUDIENCE}]`);
    expect(io.out).toContain('User "gmsa-webhooks:gmsa-webhooks-expand"');
    expect(io.out).not.toContain("PRIVATE KEY");
    const discovery = JSON.parse(
      await readFile(path.join(outDir, ".well-known/openid-configuration"), "utf8"),
    ) as Record<string, unknown>;
    expect(discovery).toMatchObject({
      issuer: ISSUER,
      jwks_uri: `${ISSUER}/openid/v1/jwks`,
      id_token_signing_alg_values_supported: ["ES256"],
    });
    const jwksText = await readFile(path.join(outDir, "openid/v1/jwks"), "utf8");
    expect(jwksText).not.toMatch(/"d"\s*:/);
    const jwks = JSON.parse(jwksText) as JSONWebKeySet;
    expect(jwks.keys.map((key) => key.alg)).toEqual(["ES256"]);
    const source = createJwtTokenSource({
      privateKey: pem,
      alg: "ES256",
      issuer: ISSUER,
      subject: "gmsa-webhooks-expand",
      audience: AUDIENCE,
      shareInFlight: false,
    });
    const credential = await source.getCredential();
    if (!isTokenCredential(credential)) throw new Error("the JWT source gives tokens");
    const { payload } = await jwtVerify(credential.token, createLocalJWKSet(jwks), {
      issuer: ISSUER,
      audience: AUDIENCE,
    });
    expect(payload.sub).toBe("gmsa-webhooks-expand");
  });

  it("exits 2 naming every missing flag, and 1 for a key it cannot read or use", async () => {
    const usage = fakeIo();
    expect(await runJwtIssuerCommand(["--key", "key.pem"], usage)).toBe(2);
    for (const flag of ["--issuer", "--audience", "--subject", "--out"])
      expect(usage.err).toContain(`${flag} is required`);
    const missing = fakeIo();
    expect(await runJwtIssuerCommand(["--key", "nope.pem", ...flags, "--out", "x"], missing)).toBe(1);
    expect(missing.err).toBe("gmsa-webhooks jwt-issuer: nope.pem: cannot be read (ENOENT)\n");
    const garbage = fakeIo({ files: { "key.pem": "not a key" } });
    expect(await runJwtIssuerCommand(["--key", "key.pem", ...flags, "--out", "x"], garbage)).toBe(1);
    expect(garbage.err).toMatch(/^gmsa-webhooks jwt-issuer: /);
    expect(garbage.out).toBe("");
  });
});
