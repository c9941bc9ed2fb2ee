import { describe, expect, it } from "vitest";
import { ConfigurationError, readConfig, type Bindings, type Runtime } from "../../../../shared/config/index.ts";
import { ASYMMETRIC_JWT_ALGORITHMS } from "../../../../shared/config/variables.ts";

const TOKEN = "tok-0123456789abcdef";
const PATH_SECRET = "Zk3v-9qX_2mR.7tY~4bN-8cW_1eL.5gH~0jP";
const RSA_JWK = { kty: "RSA", n: "sXch", e: "AQAB", kid: "k1" };

/** The problems of the ConfigurationError readConfig throws for `env`; none when it reads it. */
function problemsOf(env: Bindings, runtime: Runtime = "node"): readonly string[] {
  try {
    readConfig(env, runtime);
    return [];
  } catch (error) {
    if (error instanceof ConfigurationError) return error.problems;
    throw error;
  }
}

/** CALLER_AUTH's settings read from `env` on the Node server; throws the ConfigurationError naming any problem. */
const callerAuthOf = (env: Bindings) => readConfig(env, "node").callerAuth;

describe("readConfig", () => {
  it("reports every problem together, never only the first", () => {
    const problems = problemsOf({
      PORT: "http",
      LOG_LEVEL: "loud",
      RANDOM_HOSTNAME: "yes",
      TLS_CERT_FILE: "cert.pem",
      FUNCTIONS: "mutate",
    });
    expect(problems).toHaveLength(6);
    for (const name of ["PORT", "LOG_LEVEL", "RANDOM_HOSTNAME", "TLS_CERT_FILE", "FUNCTIONS", "CALLER_AUTH"]) {
      expect(problems.some((p) => p.includes(name))).toBe(true);
    }
  });

  it.each<[Bindings, string[]]>([
    [
      {},
      [
        'CALLER_AUTH is not set: choose how callers authenticate (none, bearer, jwt, path, mtls); "none" is for local runs only',
      ],
    ],
    [{ CALLER_AUTH: "basic" }, ['CALLER_AUTH must be one of none, bearer, jwt, path, mtls, not "basic"']],
    [{ CALLER_AUTH: "bearer" }, ["CALLER_AUTH=bearer needs CALLER_AUTH_TOKENS (comma-separated accepted tokens)"]],
    [
      { CALLER_AUTH: "path" },
      [
        "CALLER_AUTH=path needs CALLER_AUTH_PATH_SECRET: at least 32 characters of A-Z a-z 0-9 - . _ ~ (two, comma-separated, while rotating)",
      ],
    ],
    [
      { CALLER_AUTH: "jwt" },
      [
        "CALLER_AUTH=jwt needs CALLER_AUTH_JWT_ISSUER (the required iss claim)",
        "CALLER_AUTH=jwt needs CALLER_AUTH_JWT_AUDIENCE (comma-separated; aud must hold one)",
        "CALLER_AUTH=jwt needs exactly one of CALLER_AUTH_JWT_JWKS_URL, CALLER_AUTH_JWT_JWKS or CALLER_AUTH_JWT_SECRET",
      ],
    ],
    [
      { CALLER_AUTH: "mtls" },
      [
        "CALLER_AUTH=mtls needs CALLER_AUTH_CLIENT_CA_FILE (PEM file of the CA that signs callers' certificates)",
        "CALLER_AUTH=mtls needs HTTPS: set TLS_CERT_FILE and TLS_KEY_FILE",
      ],
    ],
  ])("refuses %j, naming every missing or wrong setting and how to choose", (env, problems) => {
    expect(problemsOf(env)).toEqual(problems);
  });

  it.each(["127.0.0.1", "127.1.2.3", "::1", "localhost"])(
    "accepts none on the Node server listening on loopback (HOST=%s)",
    (host) => {
      expect(callerAuthOf({ CALLER_AUTH: "none", HOST: host })).toEqual({ mode: "none" });
    },
  );

  it.each([undefined, "0.0.0.0", "::", "10.0.0.5", "example.com", "127.0.0.1.example.com"])(
    "refuses none on the Node server listening on %s",
    (host) => {
      const problems = problemsOf({ CALLER_AUTH: "none", ...(host === undefined ? {} : { HOST: host }) });
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(
        /^CALLER_AUTH=none lets anyone who reaches the function in, and the Node server listens on /,
      );
      expect(problems[0]).toContain(host === undefined ? "every interface (HOST is unset)" : `"${host}"`);
      expect(problems[0]).toContain("HOST=127.0.0.1, ::1 or localhost");
    },
  );

  it.each([
    ["workers", "Cloudflare Workers"],
    ["lambda", "AWS Lambda"],
    ["azure", "Azure Functions"],
  ] as const)("refuses none on %s, whatever HOST says", (runtime, name) => {
    const problems = problemsOf({ CALLER_AUTH: "none", HOST: "127.0.0.1" }, runtime);
    expect(problems).toEqual([
      `CALLER_AUTH=none lets anyone who reaches the function in, and ${name} is reachable from the network: none is accepted only by the Node server listening on loopback (HOST=127.0.0.1, ::1 or localhost); choose bearer, jwt or path`,
    ]);
  });

  it("reports a variable of another mode: a protection the operator thinks is on but is not", () => {
    expect(
      problemsOf({
        CALLER_AUTH: "none",
        HOST: "::1",
        CALLER_AUTH_TOKENS: TOKEN,
        CALLER_AUTH_PATH_SECRET: PATH_SECRET,
      }),
    ).toEqual([
      'CALLER_AUTH_TOKENS is set but CALLER_AUTH is "none": unset it',
      'CALLER_AUTH_PATH_SECRET is set but CALLER_AUTH is "none": unset it',
    ]);
  });
});

describe("readConfig: CALLER_AUTH=bearer", () => {
  it("reads comma-separated tokens; refuses short tokens and tokens that cannot be sent, by position, never by value", () => {
    expect(callerAuthOf({ CALLER_AUTH: "bearer", CALLER_AUTH_TOKENS: ` ${TOKEN} , ${TOKEN}2,` })).toEqual({
      mode: "bearer",
      tokens: [TOKEN, `${TOKEN}2`],
    });
    const problems = problemsOf({
      CALLER_AUTH: "bearer",
      CALLER_AUTH_TOKENS: `${TOKEN},short-one,bad token with spaces!`,
    });
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^CALLER_AUTH_TOKENS: token 2 /);
    expect(problems[1]).toMatch(/^CALLER_AUTH_TOKENS: token 3 /);
    expect(problems.join()).not.toContain("short-one");
  });
});

describe("readConfig: METRICS_TOKENS", () => {
  const env = { CALLER_AUTH: "bearer", CALLER_AUTH_TOKENS: TOKEN };

  it("is empty by default (/metrics open), reads comma-separated tokens, refuses a short one by position, not value", () => {
    expect(readConfig(env, "node").metricsTokens).toEqual([]);
    const closed = readConfig({ ...env, METRICS_TOKENS: `scrape-${TOKEN}, next-${TOKEN}` }, "node");
    expect(closed.metricsTokens).toEqual([`scrape-${TOKEN}`, `next-${TOKEN}`]);
    const problems = problemsOf({ ...env, METRICS_TOKENS: "short-one" });
    expect(problems).toEqual([expect.stringMatching(/^METRICS_TOKENS: token 1 must be at least 16 characters/)]);
    expect(problems.join()).not.toContain("short-one");
  });
});

describe("readConfig: CALLER_AUTH=path", () => {
  // One secret alone is read by every path-mode test of the handlers (aws-lambda, azure-functions).
  it("reads the secret, or two while rotating", () => {
    expect(callerAuthOf({ CALLER_AUTH: "path", CALLER_AUTH_PATH_SECRET: `${PATH_SECRET}, ${PATH_SECRET}2` })).toEqual({
      mode: "path",
      secrets: [PATH_SECRET, `${PATH_SECRET}2`],
    });
  });

  it.each([
    ["shorter than 32 characters", "abcdefghijklmnopqrstuvwxyz01234"],
    ["with characters a URL would encode", `${PATH_SECRET}/x`],
    ["with percent signs", `${PATH_SECRET}%41`],
  ])("refuses a secret %s, naming it by position and never echoing it", (_name, secret) => {
    const problems = problemsOf({ CALLER_AUTH: "path", CALLER_AUTH_PATH_SECRET: `${PATH_SECRET},${secret}` });
    expect(problems).toEqual([
      `CALLER_AUTH_PATH_SECRET: secret 2 must be at least 32 characters of A-Z a-z 0-9 - . _ ~ (it has ${secret.length} characters)`,
    ]);
  });
});

describe("readConfig: CALLER_AUTH=jwt", () => {
  const base = {
    CALLER_AUTH: "jwt",
    CALLER_AUTH_JWT_ISSUER: "https://issuer.example",
    CALLER_AUTH_JWT_AUDIENCE: "gmsa-webhooks, other",
  };

  it("reads a JWKS URL with asymmetric algorithms by default", () => {
    expect(callerAuthOf({ ...base, CALLER_AUTH_JWT_JWKS_URL: "https://issuer.example/jwks.json" })).toEqual({
      mode: "jwt",
      issuer: "https://issuer.example",
      audience: ["gmsa-webhooks", "other"],
      subjects: [],
      algorithms: [...ASYMMETRIC_JWT_ALGORITHMS],
      keys: { kind: "jwks-url", url: "https://issuer.example/jwks.json" },
    });
  });

  it("reads an inline JWKS, subjects and algorithms", () => {
    const auth = callerAuthOf({
      ...base,
      CALLER_AUTH_JWT_JWKS: JSON.stringify({ keys: [RSA_JWK] }),
      CALLER_AUTH_JWT_SUBJECTS: "system:apiserver",
      CALLER_AUTH_JWT_ALGORITHMS: "RS256,ES256",
    });
    expect(auth).toMatchObject({
      subjects: ["system:apiserver"],
      algorithms: ["RS256", "ES256"],
      keys: { kind: "jwks" },
    });
  });

  it("reads a shared secret with HS256 by default", () => {
    expect(callerAuthOf({ ...base, CALLER_AUTH_JWT_SECRET: "x".repeat(32) })).toMatchObject({
      algorithms: ["HS256"],
      keys: { kind: "secret", secret: "x".repeat(32) },
    });
  });

  it.each<[string, Bindings, RegExp]>([
    [
      "two key sources",
      { CALLER_AUTH_JWT_JWKS_URL: "https://a/jwks", CALLER_AUTH_JWT_SECRET: "x".repeat(32) },
      /exactly one of/,
    ],
    [
      "an http JWKS URL to a remote host",
      { CALLER_AUTH_JWT_JWKS_URL: "http://issuer.example/jwks" },
      /must be an https URL/,
    ],
    ["a JWKS URL that is no URL", { CALLER_AUTH_JWT_JWKS_URL: "issuer/jwks" }, /is not a URL/],
    ["an inline JWKS that is not JSON", { CALLER_AUTH_JWT_JWKS: "{keys" }, /CALLER_AUTH_JWT_JWKS is not JSON/],
    ["an inline JWKS without keys", { CALLER_AUTH_JWT_JWKS: '{"keys":[]}' }, /at least one key/],
    [
      "a private key in the JWKS",
      { CALLER_AUTH_JWT_JWKS: JSON.stringify({ keys: [{ ...RSA_JWK, d: "secret" }] }) },
      /private key/,
    ],
    [
      "a symmetric key in the JWKS",
      { CALLER_AUTH_JWT_JWKS: JSON.stringify({ keys: [{ kty: "oct", k: "c2VjcmV0" }] }) },
      /symmetric key/,
    ],
    ["a short shared secret", { CALLER_AUTH_JWT_SECRET: "short" }, /at least 32 characters/],
    [
      "HS256 with a key set",
      { CALLER_AUTH_JWT_JWKS_URL: "https://a/jwks", CALLER_AUTH_JWT_ALGORITHMS: "RS256,HS256" },
      /HS\* needs/,
    ],
    [
      "none",
      { CALLER_AUTH_JWT_JWKS_URL: "https://a/jwks", CALLER_AUTH_JWT_ALGORITHMS: "none" },
      /none is never accepted/,
    ],
    [
      "RS256 with a shared secret",
      { CALLER_AUTH_JWT_SECRET: "x".repeat(32), CALLER_AUTH_JWT_ALGORITHMS: "RS256" },
      /HS256, HS384, HS512/,
    ],
  ])("refuses %s", (_name, env, problem) => {
    const problems = problemsOf({ ...base, ...env });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(problem);
  });

  it("allows an http JWKS URL on localhost (tests, a sidecar)", () => {
    expect(callerAuthOf({ ...base, CALLER_AUTH_JWT_JWKS_URL: "http://127.0.0.1:8080/jwks" })).toMatchObject({
      keys: { kind: "jwks-url" },
    });
  });

  it("never echoes the shared secret", () => {
    expect(problemsOf({ ...base, CALLER_AUTH_JWT_SECRET: "hunter2-hunter2" }).join()).not.toContain("hunter2");
  });
});

describe("readConfig: CALLER_AUTH=mtls", () => {
  const tls = { TLS_CERT_FILE: "server.pem", TLS_KEY_FILE: "server-key.pem" };

  it("reads the CA file and the allowed names", () => {
    expect(
      callerAuthOf({
        CALLER_AUTH: "mtls",
        CALLER_AUTH_CLIENT_CA_FILE: "ca.pem",
        CALLER_AUTH_CLIENT_NAMES: "kube-apiserver, apiserver-2",
        ...tls,
      }),
    ).toEqual({ mode: "mtls", clientCaFile: "ca.pem", clientNames: ["kube-apiserver", "apiserver-2"] });
  });

  it("is a start-up error on Workers, pointing to Cloudflare's mTLS", () => {
    const problems = problemsOf({ CALLER_AUTH: "mtls", CALLER_AUTH_CLIENT_CA_FILE: "ca.pem" }, "workers");
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      /^CALLER_AUTH=mtls needs the Node server: on Cloudflare Workers TLS ends at Cloudflare/,
    );
    expect(problems[0]).toContain("https://developers.cloudflare.com/api-shield/security/mtls/");
  });
});
