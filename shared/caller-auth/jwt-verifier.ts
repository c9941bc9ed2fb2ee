// jwt.ts loads this file (and jose) only where CALLER_AUTH=jwt, and imports only its types statically.
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  errors,
  jwtVerify,
  type JSONWebKeySet,
  type JWTVerifyOptions,
} from "jose";

/** Where the verification keys come from: a JWKS URL (jose's `createRemoteJWKSet`), an inline JWKS of public keys, or an HMAC secret. */
export type JwtKeySource =
  { kind: "jwks-url"; url: string } | { kind: "jwks"; jwks: JSONWebKeySet } | { kind: "secret"; secret: string };

/** CALLER_AUTH=jwt: `iss` must be `issuer`, `aud` hold one of `audience`, `sub` one of `subjects` if any (an issuer mints for many), `alg` one of `algorithms`. */
export type JwtCallerAuthOptions = {
  mode: "jwt";
  issuer: string;
  audience: readonly string[];
  subjects: readonly string[];
  algorithms: readonly string[];
  keys: JwtKeySource;
};

/** The outcome of checking one caller: 401 not authenticated, 403 authenticated but not allowed, 503 cannot tell. */
export type CallerCheck = { ok: true } | { ok: false; status: 401 | 403 | 503; reason: string };

/** Leeway for `exp` and `nbf`, in seconds: clocks of the API server and of the function may differ a little. */
const CLOCK_TOLERANCE_S = 30;

/** Failures of the key set itself, not of the token: the caller may be fine, we cannot tell (503). */
const KEY_SET_FAILURES = new Set(["ERR_JWKS_TIMEOUT", "ERR_JWKS_INVALID", "ERR_JOSE_GENERIC"]);

/** A verifier of caller JWTs (jose `jwtVerify`) for options config has checked; `now` in ms since the epoch. @throws on an invalid inline JWKS. */
export function createJwtVerifier(
  options: JwtCallerAuthOptions,
  now: () => number = Date.now,
): (token: string) => Promise<CallerCheck> {
  const { keys } = options;
  const key =
    keys.kind === "secret"
      ? new TextEncoder().encode(keys.secret)
      : keys.kind === "jwks"
        ? createLocalJWKSet(keys.jwks)
        : createRemoteJWKSet(new URL(keys.url));
  const subjects = new Set(options.subjects);
  const fixed = {
    algorithms: [...options.algorithms],
    issuer: options.issuer,
    audience: [...options.audience],
    clockTolerance: CLOCK_TOLERANCE_S,
    // A token without `exp` would be good forever.
    requiredClaims: ["exp"],
  } satisfies JWTVerifyOptions;
  return async (token) => {
    try {
      const verifyOptions: JWTVerifyOptions = { ...fixed, currentDate: new Date(now()) };
      const { payload } =
        key instanceof Uint8Array
          ? await jwtVerify(token, key, verifyOptions)
          : await jwtVerify(token, key, verifyOptions);
      if (subjects.size > 0 && (payload.sub === undefined || !subjects.has(payload.sub))) {
        return { ok: false, status: 403, reason: "subject not allowed" };
      }
      return { ok: true };
    } catch (error) {
      if (!(error instanceof errors.JOSEError)) return { ok: false, status: 503, reason: "key set unavailable" };
      if (KEY_SET_FAILURES.has(error.code)) return { ok: false, status: 503, reason: error.code };
      // Claim failures name the claim (never its value): "ERR_JWT_CLAIM_VALIDATION_FAILED aud".
      const claim =
        error instanceof errors.JWTClaimValidationFailed || error instanceof errors.JWTExpired ? ` ${error.claim}` : "";
      return { ok: false, status: 401, reason: `${error.code}${claim}` };
    }
  };
}
