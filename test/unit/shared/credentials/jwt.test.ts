import { createLocalJWKSet, decodeProtectedHeader, exportJWK, exportPKCS8, generateKeyPair, jwtVerify } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { buildJwks, buildOpenIdDiscovery, createJwtTokenSource } from "../../../../shared/credentials/jwt.ts";

const issuer = "https://issuer.example/gmsa";
const subject = "system:serviceaccount:gmsa-webhooks:authorize";
const audience = "https://kube.example";
let rsaPem = "";
let ecJwk = "";

beforeAll(async () => {
  const rsa = await generateKeyPair("RS256", { extractable: true });
  rsaPem = await exportPKCS8(rsa.privateKey);
  const ec = await generateKeyPair("ES256", { extractable: true });
  ecJwk = JSON.stringify({ ...(await exportJWK(ec.privateKey)), alg: "ES256" });
});

describe("createJwtTokenSource", () => {
  it("mints tokens with iss, sub, aud, iat and exp that the published JWKS verifies", async () => {
    const clock = Date.now();
    const source = createJwtTokenSource({
      privateKey: rsaPem,
      issuer,
      subject,
      audience,
      lifetimeMs: 300_000,
      shareInFlight: false,
      now: () => clock,
    });
    const { token, expirationTimestamp } = (await source.getCredential()) as {
      token: string;
      expirationTimestamp: string;
    };
    const { payload, protectedHeader } = await jwtVerify(
      token,
      createLocalJWKSet(await buildJwks({ privateKey: rsaPem })),
      { issuer, audience },
    );
    const iat = Math.floor(clock / 1000);
    expect(payload).toEqual({ iss: issuer, sub: subject, aud: audience, iat, exp: iat + 300 });
    expect(protectedHeader).toMatchObject({ alg: "RS256", typ: "JWT" });
    expect(expirationTimestamp).toBe(new Date((iat + 300) * 1000).toISOString());
  });

  it("uses the configured key id, else the key's thumbprint, in the header and the JWKS, which has only the public key", async () => {
    const jwks = await buildJwks({ privateKey: ecJwk });
    const source = createJwtTokenSource({ privateKey: ecJwk, issuer, subject, audience, shareInFlight: true });
    const { token } = (await source.getCredential()) as { token: string };
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: "ES256", kid: jwks.keys[0]?.kid });
    const named = await buildJwks({ privateKey: rsaPem, keyId: "key-2030" });
    expect(named.keys[0]?.kid).toBe("key-2030");
    for (const privateKey of [rsaPem, ecJwk]) {
      const [jwk] = (await buildJwks({ privateKey })).keys;
      expect(jwk).toBeDefined();
      for (const member of ["d", "p", "q", "dp", "dq", "qi"]) expect(jwk).not.toHaveProperty(member);
      expect(jwk).toMatchObject({ use: "sig" });
    }
  });
});

describe("buildOpenIdDiscovery", () => {
  it("points at the JWKS under the issuer, as kube-apiserver's own discovery does", () => {
    expect(buildOpenIdDiscovery({ issuer: `${issuer}/`, alg: "ES256" })).toEqual({
      issuer: `${issuer}/`,
      jwks_uri: `${issuer}/openid/v1/jwks`,
      response_types_supported: ["id_token"],
      subject_types_supported: ["public"],
      id_token_signing_alg_values_supported: ["ES256"],
    });
  });
});
