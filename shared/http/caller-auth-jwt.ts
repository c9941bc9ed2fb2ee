import { createLocalJWKSet, createRemoteJWKSet, errors, jwtVerify, type JSONWebKeySet, type JWTVerifyGetKey, type JWTVerifyOptions } from "jose";

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
  /** A JWKS fetched with jose's `createRemoteJWKSet` (cached, refetched on an unknown `kid` after the cooldown). */
  | { kind: "jwks-url"; url: string; timeoutMs: number; cooldownMs: number }
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
  /** Leeway for `exp` and `nbf`, in seconds. */
  clockToleranceS: number;
}

/** The outcome of checking one caller: 401 not authenticated, 403 authenticated but not allowed, 503 cannot tell. */
export type CallerCheck = { ok: true } | { ok: false; status: 401 | 403 | 503; reason: string };

/** Failures of the key set itself, not of the token: the caller may be fine, we cannot tell (503). */
const KEY_SET_FAILURES = new Set(["ERR_JWKS_TIMEOUT", "ERR_JWKS_INVALID", "ERR_JOSE_GENERIC"]);

/**
 * A verifier of caller JWTs (jose `jwtVerify`): signature by an allowed algorithm, `iss`, `aud`, `exp` (required)
 * and `nbf` within the clock tolerance, `sub` when restricted. `now` is the clock, in ms since the epoch.
 * @throws TypeError on options that would weaken verification (no algorithms, `none`, HS* with a key set,
 *   asymmetric algorithms with a secret, an invalid inline JWKS).
 */
export function createJwtVerifier(options: JwtCallerOptions, now: () => number = Date.now): (token: string) => Promise<CallerCheck> {
  checkAlgorithms(options);
  if (options.issuer === "" || options.audience.length === 0) throw new TypeError("jwt caller auth needs an issuer and an audience");
  const key = createKey(options.keys);
  const subjects = new Set(options.subjects);
  const fixed = {
    algorithms: [...options.algorithms],
    issuer: options.issuer,
    audience: [...options.audience],
    clockTolerance: options.clockToleranceS,
    // A token without `exp` would be good forever.
    requiredClaims: ["exp"],
  } satisfies JWTVerifyOptions;
  return async (token) => {
    try {
      const verifyOptions: JWTVerifyOptions = { ...fixed, currentDate: new Date(now()) };
      const { payload } =
        key instanceof Uint8Array ? await jwtVerify(token, key, verifyOptions) : await jwtVerify(token, key, verifyOptions);
      if (subjects.size > 0 && (payload.sub === undefined || !subjects.has(payload.sub))) {
        return { ok: false, status: 403, reason: "subject not allowed" };
      }
      return { ok: true };
    } catch (error) {
      return describeFailure(error);
    }
  };
}

function describeFailure(error: unknown): CallerCheck {
  if (!(error instanceof errors.JOSEError)) return { ok: false, status: 503, reason: "key set unavailable" };
  if (KEY_SET_FAILURES.has(error.code)) return { ok: false, status: 503, reason: error.code };
  // Claim failures name the claim (never its value): "ERR_JWT_CLAIM_VALIDATION_FAILED aud".
  const claim = error instanceof errors.JWTClaimValidationFailed || error instanceof errors.JWTExpired ? ` ${error.claim}` : "";
  return { ok: false, status: 401, reason: `${error.code}${claim}` };
}

function createKey(keys: JwtKeySource): Uint8Array | JWTVerifyGetKey {
  switch (keys.kind) {
    case "secret":
      return new TextEncoder().encode(keys.secret);
    case "jwks":
      return createLocalJWKSet(keys.jwks);
    case "jwks-url":
      return createRemoteJWKSet(new URL(keys.url), { timeoutDuration: keys.timeoutMs, cooldownDuration: keys.cooldownMs });
  }
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
