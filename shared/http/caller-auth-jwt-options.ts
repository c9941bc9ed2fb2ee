/**
 * The options of JWT caller auth and their checks, without jose: configuration parsing and the middleware's setup
 * read these, and the verifier itself (caller-auth-jwt.ts, with jose) is loaded only where CALLER_AUTH=jwt.
 */
import type { JSONWebKeySet } from "jose";

/** Signature algorithms with a public key: the default, so no shared secret is needed to verify. */
export const ASYMMETRIC_JWT_ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
] as const;
/** HMAC algorithms: only with a configured shared secret, never with a key set (algorithm confusion). */
export const SYMMETRIC_JWT_ALGORITHMS = ["HS256", "HS384", "HS512"] as const;

/** Where the verification keys come from. */
export type JwtKeySource =
  /**
   * A JWKS fetched with jose's `createRemoteJWKSet`, with its defaults: a 5 s fetch timeout, cached, refetched on an
   * unknown `kid` at most every 30 s.
   */
  | { kind: "jwks-url"; url: string }
  /** A JWKS given inline (public keys only). */
  | { kind: "jwks"; jwks: JSONWebKeySet }
  /** A shared HMAC secret, for HS* algorithms only. */
  | { kind: "secret"; secret: string };

export interface JwtCallerOptions {
  /** Required `iss`. */
  issuer: string;
  /** `aud` must contain at least one of these. */
  audience: readonly string[];
  /** When non-empty, `sub` must be one of these (needed when the issuer mints tokens for many subjects). */
  subjects: readonly string[];
  /** Accepted `alg` values; never `none`; HS* only with a secret, asymmetric ones only with a key set. */
  algorithms: readonly string[];
  keys: JwtKeySource;
}

/** The outcome of checking one caller: 401 not authenticated, 403 authenticated but not allowed, 503 cannot tell. */
export type CallerCheck = { ok: true } | { ok: false; status: 401 | 403 | 503; reason: string };

/**
 * Checks options that would weaken verification.
 * @throws TypeError on no algorithms, `none`, HS* with a key set, asymmetric algorithms with a secret, or no issuer
 *   or audience.
 */
export function checkJwtCallerOptions(options: JwtCallerOptions): void {
  checkAlgorithms(options);
  if (options.issuer === "" || options.audience.length === 0) throw new TypeError("jwt caller auth needs an issuer and an audience");
}

function checkAlgorithms(options: JwtCallerOptions): void {
  const symmetric = new Set<string>(SYMMETRIC_JWT_ALGORITHMS);
  const asymmetric = new Set<string>(ASYMMETRIC_JWT_ALGORITHMS);
  const allowed = options.keys.kind === "secret" ? symmetric : asymmetric;
  if (options.algorithms.length === 0) throw new TypeError("jwt caller auth needs at least one algorithm");
  const bad = options.algorithms.filter((alg) => !allowed.has(alg));
  if (bad.length > 0) {
    const source = options.keys.kind === "secret" ? "a shared secret" : "a key set";
    throw new TypeError(`jwt caller auth with ${source} cannot accept ${bad.join(", ")}`);
  }
}
