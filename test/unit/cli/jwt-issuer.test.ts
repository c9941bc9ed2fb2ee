import { readFile } from "node:fs/promises";
import path from "node:path";
import { exportPKCS8, generateKeyPair, jwtVerify, createLocalJWKSet, type JSONWebKeySet } from "jose";
import { describe, expect, it } from "vitest";
import { buildAuthenticatorEntry, writeJwtIssuerFiles } from "../../../cli/jwt-issuer.ts";
import { createJwtTokenSource } from "../../../shared/credentials/jwt.ts";
import { isTokenCredential } from "../../../shared/credentials/token-source.ts";
import { tempDir } from "../../support/temp-dir.ts";

const ISSUER = "https://gmsa-issuer.example.com";

describe("writeJwtIssuerFiles", () => {
  it("publishes a discovery document and a JWKS that verify the Worker's tokens, without the private key", async () => {
    const { privateKey } = await generateKeyPair("ES256", { extractable: true });
    const pem = await exportPKCS8(privateKey);
    const outDir = await tempDir("gmsa-issuer-");
    expect(await writeJwtIssuerFiles({ privateKey: pem, alg: "ES256", issuer: ISSUER, outDir })).toEqual([
      ".well-known/openid-configuration",
      "openid/v1/jwks",
    ]);
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
    const source = createJwtTokenSource({
      privateKey: pem,
      alg: "ES256",
      issuer: ISSUER,
      subject: "gmsa-webhooks-expand",
      audience: "https://kubernetes.example.com",
      shareInFlight: false,
    });
    const credential = await source.getCredential();
    if (!isTokenCredential(credential)) throw new Error("the JWT source gives tokens");
    const token = credential.token;
    const { payload } = await jwtVerify(token, createLocalJWKSet(JSON.parse(jwksText) as JSONWebKeySet), {
      issuer: ISSUER,
      audience: "https://kubernetes.example.com",
    });
    expect(payload.sub).toBe("gmsa-webhooks-expand");
  });
});

describe("buildAuthenticatorEntry", () => {
  it("maps sub to a prefixed username for RBAC", () => {
    const entry = buildAuthenticatorEntry({
      issuer: ISSUER,
      audience: "https://kubernetes.example.com",
      subject: "gmsa-webhooks-expand",
    });
    expect(entry).toContain(`url: ${ISSUER}`);
    expect(entry).toContain("audiences: [https://kubernetes.example.com]");
    expect(entry).toContain('User "gmsa-webhooks:gmsa-webhooks-expand"');
  });
});
