import { describe, expect, it } from "vitest";
import { parseKubeSettings } from "../../../../shared/config/index.ts";

const jwk = JSON.stringify({ kty: "EC", crv: "P-256", x: "x", y: "y", d: "d" });

describe("parseKubeSettings", () => {
  it("has working defaults for an empty environment", () => {
    expect(parseKubeSettings({})).toEqual({
      settings: { credSpecCacheTtlMs: 30_000, accessCacheTtlMs: 10_000 },
      problems: [],
    });
  });

  it("reads every variable", () => {
    const { settings, problems } = parseKubeSettings({
      KUBECONFIG: "/a:/b",
      KUBE_CONTEXT: "prod",
      KUBERNETES_SERVICE_HOST: "10.0.0.1",
      KUBERNETES_SERVICE_PORT: "443",
      CREDSPEC_CACHE_TTL_MS: "0",
      ACCESS_CACHE_TTL_MS: "5000",
      JWT_PRIVATE_KEY: jwk,
      JWT_ALG: "ES256",
      JWT_KEY_ID: "k1",
      JWT_ISSUER: "https://issuer.example",
      JWT_SUBJECT: "gmsa-webhooks",
      JWT_AUDIENCE: "https://kube.example, other",
    });
    expect(problems).toEqual([]);
    expect(settings).toEqual({
      kubeconfig: "/a:/b",
      kubeContext: "prod",
      inCluster: { host: "10.0.0.1", port: "443" },
      credSpecCacheTtlMs: 0,
      accessCacheTtlMs: 5_000,
      jwt: {
        privateKey: jwk,
        alg: "ES256",
        keyId: "k1",
        issuer: "https://issuer.example",
        subject: "gmsa-webhooks",
        audience: ["https://kube.example", "other"],
      },
    });
    expect(Object.isFrozen(settings)).toBe(true);
  });

  it("reports every problem together and never echoes a private key", () => {
    const { problems } = parseKubeSettings({
      CREDSPEC_CACHE_TTL_MS: "30s",
      ACCESS_CACHE_TTL_MS: "-1",
      JWT_PRIVATE_KEY: "-----BEGIN RSA PRIVATE KEY-----\nsecret-material\n-----END RSA PRIVATE KEY-----",
      JWT_ISSUER: "http://issuer",
    });
    expect(problems).toEqual([
      'CREDSPEC_CACHE_TTL_MS must be an integer of at least 0, not "30s"',
      'ACCESS_CACHE_TTL_MS must be an integer of at least 0, not "-1"',
      "JWT_SUBJECT, JWT_AUDIENCE must be set too when JWT_PRIVATE_KEY, JWT_ISSUER is set",
      "JWT_PRIVATE_KEY must be PKCS8 (-----BEGIN PRIVATE KEY-----); convert with openssl pkcs8 -topk8 -nocrypt",
      "JWT_ISSUER must be an https URL, as Kubernetes JWT authenticators require",
    ]);
    expect(problems.join()).not.toContain("secret-material");
  });

  it("refuses a private key that is neither PEM nor a private JWK", () => {
    const { problems } = parseKubeSettings({
      JWT_PRIVATE_KEY: '{"kty":"EC"}',
      JWT_ISSUER: "https://i",
      JWT_SUBJECT: "s",
      JWT_AUDIENCE: "a",
    });
    expect(problems).toEqual(['JWT_PRIVATE_KEY must be a PKCS8 PEM or a private JWK (JSON with "d")']);
  });
});
