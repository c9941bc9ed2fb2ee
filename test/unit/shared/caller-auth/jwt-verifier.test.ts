import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CallerAuthOptions } from "../../../../shared/caller-auth/index.ts";
import type { JwtKeySource } from "../../../../shared/caller-auth/jwt-verifier.ts";
import { ASYMMETRIC_JWT_ALGORITHMS } from "../../../../shared/config/variables.ts";
import { createCallerAuthTestApp, NOW_MS } from "../../../support/app.ts";
import { gmsaReview } from "../../../support/reviews.ts";
import { post } from "../../../support/requests.ts";

const ISSUER = "https://issuer.example";
const AUDIENCE = "gmsa-webhooks";
const NOW_S = NOW_MS / 1000;
const HS_SECRET = "a-shared-hmac-secret-of-at-least-32-chars";

interface SigningKey {
  alg: string;
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  jwk: JWK;
}

async function createSigningKey(alg: string, kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { alg, kid, privateKey, publicKey, jwk: { ...(await exportJWK(publicKey)), kid, use: "sig" } };
}

function sign(
  key: { alg: string; kid?: string; privateKey: CryptoKey | Uint8Array },
  claims: { [claim in keyof JWTPayload]: JWTPayload[claim] | undefined } = {},
): Promise<string> {
  // A claim given as undefined is left out of the token.
  const payload = Object.fromEntries(
    Object.entries({
      iss: ISSUER,
      aud: AUDIENCE,
      sub: "system:apiserver",
      iat: NOW_S,
      exp: NOW_S + 300,
      ...claims,
    }).filter(([, value]) => value !== undefined),
  );
  return new SignJWT(payload)
    .setProtectedHeader({ alg: key.alg, ...(key.kid === undefined ? {} : { kid: key.kid }), typ: "JWT" })
    .sign(key.privateKey);
}

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString("base64url");
}

type JwtAuth = Extract<CallerAuthOptions, { mode: "jwt" }>;

function jwtAuth(keys: JwtKeySource, extra: Partial<JwtAuth> = {}): JwtAuth {
  return {
    mode: "jwt",
    issuer: ISSUER,
    audience: [AUDIENCE],
    subjects: [],
    algorithms: keys.kind === "secret" ? ["HS256"] : [...ASYMMETRIC_JWT_ALGORITHMS],
    keys,
    ...extra,
  };
}

async function call(auth: CallerAuthOptions, token: string | undefined) {
  const { app, gmsa, logger } = createCallerAuthTestApp(auth);
  const res = await app.request(
    "/authorize",
    post(gmsaReview(), token === undefined ? {} : { authorization: `Bearer ${token}` }),
  );
  return { status: res.status, calls: gmsa.calls, logged: logger.text(), res };
}

let rs: SigningKey;
let es: SigningKey;
let ed: SigningKey;
let stranger: SigningKey;
let jwks: { keys: JWK[] };

beforeAll(async () => {
  [rs, es, ed, stranger] = await Promise.all([
    createSigningKey("RS256", "rs"),
    createSigningKey("ES256", "es"),
    createSigningKey("EdDSA", "ed"),
    createSigningKey("RS256", "rs"),
  ]);
  jwks = { keys: [rs.jwk, es.jwk, ed.jwk] };
});

describe("caller auth: jwt with an inline JWKS", () => {
  const auth = () => jwtAuth({ kind: "jwks", jwks });

  it("accepts tokens signed by each key of the set (RS256, ES256, EdDSA), and one within the clock tolerance of its exp", async () => {
    for (const key of [rs, es, ed]) expect((await call(auth(), await sign(key))).status).toBe(200);
    expect((await call(auth(), await sign(rs, { exp: NOW_S - 20 }))).status).toBe(200);
  });

  it.each<[string, () => Promise<string>, string]>([
    ["an expired token", () => sign(rs, { exp: NOW_S - 60 }), "ERR_JWT_EXPIRED exp"],
    ["a token for another audience", () => sign(rs, { aud: "someone-else" }), "ERR_JWT_CLAIM_VALIDATION_FAILED aud"],
    [
      "a token from another issuer",
      () => sign(rs, { iss: "https://evil.example" }),
      "ERR_JWT_CLAIM_VALIDATION_FAILED iss",
    ],
    ["a token not yet valid", () => sign(rs, { nbf: NOW_S + 120 }), "ERR_JWT_CLAIM_VALIDATION_FAILED nbf"],
    ["a token without exp", () => sign(rs, { exp: undefined }), "ERR_JWT_CLAIM_VALIDATION_FAILED exp"],
    ["a token signed by another key with the same kid", () => sign(stranger), "ERR_JWS_SIGNATURE_VERIFICATION_FAILED"],
    ["a token with an unknown kid", () => sign({ ...rs, kid: "nope" }), "ERR_JWKS_NO_MATCHING_KEY"],
    [
      "an unsigned token (alg none)",
      () =>
        Promise.resolve(
          `${base64url({ alg: "none", typ: "JWT" })}.${base64url({ iss: ISSUER, aud: AUDIENCE, exp: NOW_S + 300 })}.`,
        ),
      "ERR_JOSE_ALG_NOT_ALLOWED",
    ],
    [
      "an HS256 token signed with the public key as the secret (algorithm confusion)",
      async () =>
        sign({
          alg: "HS256",
          kid: "rs",
          privateKey: new TextEncoder().encode(await exportSPKI(rs.publicKey)),
        }),
      "ERR_JOSE_ALG_NOT_ALLOWED",
    ],
    [
      "an HS256 token signed with the public JWK as the secret",
      () => sign({ alg: "HS256", kid: "rs", privateKey: new TextEncoder().encode(JSON.stringify(rs.jwk)) }),
      "ERR_JOSE_ALG_NOT_ALLOWED",
    ],
    ["a token that is not a JWT", () => Promise.resolve("definitely-not-a-jwt"), "ERR_JWS_INVALID"],
  ])("refuses %s with 401, logging the reason code only", async (_name, token, reason) => {
    const text = await token();
    const result = await call(auth(), text);
    expect(result.status).toBe(401);
    expect(result.res.headers.get("www-authenticate")).toContain("Bearer");
    expect(result.calls).toBe(0);
    expect(result.logged).toContain(`"reason":"${reason}"`);
    expect(result.logged).not.toContain(text.split(".")[1] ?? text);
  });

  it("refuses a subject outside CALLER_AUTH_JWT_SUBJECTS with 403 and accepts one inside; no token is a 401", async () => {
    expect((await call(auth(), undefined)).status).toBe(401);
    const restricted = jwtAuth({ kind: "jwks", jwks }, { subjects: ["system:apiserver"] });
    expect((await call(restricted, await sign(rs))).status).toBe(200);
    expect((await call(restricted, await sign(rs, { sub: "system:serviceaccount:default:mallory" }))).status).toBe(403);
    expect((await call(restricted, await sign(rs, { sub: undefined }))).status).toBe(403);
  });

  it("accepts only the configured algorithms", async () => {
    const esOnly = jwtAuth({ kind: "jwks", jwks }, { algorithms: ["ES256"] });
    expect((await call(esOnly, await sign(es))).status).toBe(200);
    expect((await call(esOnly, await sign(rs))).status).toBe(401);
  });

  it("answers 503 when the verifier cannot be made (a key set jose refuses)", async () => {
    const { status, logged } = await call(jwtAuth({ kind: "jwks", jwks: { keys: "none" } as never }), await sign(rs));
    expect(status).toBe(503);
    expect(logged).toContain("jwt verifier unavailable");
  });
});

describe("caller auth: jwt with a shared secret", () => {
  const auth = () => jwtAuth({ kind: "secret", secret: HS_SECRET });
  const hs = { alg: "HS256", privateKey: new TextEncoder().encode(HS_SECRET) };

  it("accepts an HS256 token signed with the secret; refuses another secret's and an RS256 token (401)", async () => {
    expect((await call(auth(), await sign(hs))).status).toBe(200);
    expect(
      (await call(auth(), await sign({ ...hs, privateKey: new TextEncoder().encode(`${HS_SECRET}!`) }))).status,
    ).toBe(401);
    expect((await call(auth(), await sign(rs))).status).toBe(401);
  });
});

describe("caller auth: jwt with a JWKS URL", () => {
  let server: Server;
  let url: string;
  let fetches = 0;
  let up = true;

  beforeAll(async () => {
    server = createServer((_req, res) => {
      fetches++;
      if (!up) {
        res.writeHead(503).end();
        return;
      }
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(jwks));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("fetches the key set once, verifies tokens with it, and refuses an unknown kid (401) without refetching", async () => {
    fetches = 0;
    const { app } = createCallerAuthTestApp(jwtAuth({ kind: "jwks-url", url }));
    const status = async (key: typeof rs) =>
      (await app.request("/authorize", post(gmsaReview(), { authorization: `Bearer ${await sign(key)}` }))).status;
    for (const key of [rs, es, rs]) expect(await status(key)).toBe(200);
    for (let i = 0; i < 3; i++) expect(await status({ ...rs, kid: `x${i}` })).toBe(401);
    expect(fetches).toBe(1);
  });

  it("answers 503 when the key set cannot be fetched, with no API call", async () => {
    up = false;
    try {
      const { app, gmsa } = createCallerAuthTestApp(jwtAuth({ kind: "jwks-url", url }));
      const res = await app.request("/authorize", post(gmsaReview(), { authorization: `Bearer ${await sign(rs)}` }));
      expect(res.status).toBe(503);
      expect(gmsa.calls).toBe(0);
    } finally {
      up = true;
    }
  });
});
