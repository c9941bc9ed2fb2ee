import fc from "fast-check";
import { exportJWK, generateKeyPair, SignJWT, type JWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCallerAuthTestApp, NOW_MS } from "../../support/app.ts";
import { gmsaReview } from "../../support/reviews.ts";
import { post } from "../../support/requests.ts";
import { fuzzParameters } from "./harness.ts";

const TOKEN = "fuzz-bearer-token-0123456789";
let inputs = 0;

afterAll(() => {
  console.log(`fuzz: ${inputs} caller credentials`);
});

/** The bytes a compact JWS's segments decode to: a token that decodes the same is the same token. */
function decodedSegments(token: string): string {
  return token
    .split(".")
    .map((part) => Buffer.from(part, "base64url").toString("hex"))
    .join(".");
}

describe("fuzz: caller credentials", () => {
  it("bearer: only the exact token in a Bearer header gets through", async () => {
    const { app, gmsa } = createCallerAuthTestApp({ mode: "bearer", tokens: [TOKEN] });
    const header = fc.oneof(
      fc.string({ maxLength: 60 }),
      fc.string({ maxLength: 40 }).map((s) => `Bearer ${s}`),
      fc
        .tuple(fc.nat({ max: TOKEN.length }), fc.string({ maxLength: 3 }))
        .map(([at, s]) => `Bearer ${TOKEN.slice(0, at)}${s}${TOKEN.slice(at + s.length)}`),
      fc.constantFrom(
        `bearer ${TOKEN}`,
        `BEARER  ${TOKEN}`,
        `Bearer ${TOKEN} `,
        `Bearer\t${TOKEN}`,
        `Basic ${TOKEN}`,
        `Bearer ${TOKEN},x`,
      ),
    );
    await fc.assert(
      fc.asyncProperty(header, async (value) => {
        inputs++;
        const exact = /^Bearer +(\S+) *$/i.exec(value)?.[1] === TOKEN;
        let res: Response;
        try {
          // GET on a review route: 405 once the caller is in, 401 before.
          res = await app.request("/expand", { headers: { authorization: value } });
        } catch (error) {
          // Header values the Fetch API refuses (control characters) never reach an app.
          expect(error).toBeInstanceOf(TypeError);
          return;
        }
        expect(res.status).toBe(exact ? 405 : 401);
      }),
      fuzzParameters(3000),
    );
    expect(gmsa.calls).toBe(0);
  }, 60_000);

  describe("jwt", () => {
    let token: string;
    let jwk: JWK;

    beforeAll(async () => {
      const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
      jwk = { ...(await exportJWK(publicKey)), kid: "k1" };
      const now = NOW_MS / 1000;
      token = await new SignJWT({})
        .setProtectedHeader({ alg: "ES256", kid: "k1" })
        .setIssuer("https://issuer.example")
        .setAudience("gmsa-webhooks")
        .setIssuedAt(now)
        .setExpirationTime(now + 300)
        .sign(privateKey);
    });

    it("a tampered token never gets through: changed characters, segments, header or claims", async () => {
      const { app, gmsa } = createCallerAuthTestApp({
        mode: "jwt",
        issuer: "https://issuer.example",
        audience: ["gmsa-webhooks"],
        subjects: [],
        algorithms: ["ES256", "RS256", "EdDSA"],
        keys: { kind: "jwks", jwks: { keys: [jwk] } },
      });
      const ok = await app.request("/authorize", post(gmsaReview(), { authorization: `Bearer ${token}` }));
      expect(ok.status).toBe(200);
      let passed = 0;
      const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
      const tampered = fc.oneof(
        fc
          .tuple(fc.nat(), fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_."))
          .map(([at, ch]) => {
            const i = at % token.length;
            return token.slice(0, i) + ch + token.slice(i + 1);
          }),
        fc.nat().map((at) => token.slice(0, at % token.length)),
        fc
          .record(
            {
              alg: fc.constantFrom("none", "HS256", "ES384", "RS256", "ES256"),
              kid: fc.constantFrom("k1", "k2", "../../etc/passwd"),
              typ: fc.constantFrom("JWT", "at+jwt"),
            },
            { requiredKeys: ["alg"] },
          )
          .map((header) => [base64url(header), ...token.split(".").slice(1)].join(".")),
        fc
          .record({
            aud: fc.constantFrom("gmsa-webhooks", "other"),
            exp: fc.integer(),
            iss: fc.constantFrom("https://issuer.example", "x"),
          })
          .map((claims) => [token.split(".")[0], base64url(claims), token.split(".")[2]].join(".")),
        fc.constantFrom(`${token}.`, `.${token}`, token.split(".").reverse().join("."), token.replace(/\.[^.]*$/, ".")),
      );
      await fc.assert(
        fc.asyncProperty(tampered, async (candidate) => {
          inputs++;
          const res = await app.request("/authorize", post(gmsaReview(), { authorization: `Bearer ${candidate}` }));
          if (res.status !== 200) {
            expect(res.status).toBe(401);
            return;
          }
          // Only the same token gets through: the same signed text, and a signature whose last character may
          // differ in base64url's spare bits only (the same signature bytes).
          passed++;
          expect(candidate.split(".").slice(0, 2)).toEqual(token.split(".").slice(0, 2));
          expect(decodedSegments(candidate)).toBe(decodedSegments(token));
        }),
        fuzzParameters(3000),
      );
      // Authorize checks one credspec: two API calls per review that got through, none for the others.
      expect(gmsa.calls).toBe(2 * (1 + passed));
    }, 60_000);
  });
});
