import { createLocalJWKSet, createRemoteJWKSet, errors, jwtVerify, type JWTVerifyOptions } from "jose";
// Types only: caller-auth.ts loads this file (and jose) only where CALLER_AUTH=jwt.
import type { CallerAuthOptions, CallerCheck } from "./caller-auth.ts";

/** Leeway for `exp` and `nbf`, in seconds: clocks of the API server and of the function may differ a little. */
const CLOCK_TOLERANCE_S = 30;

/** Failures of the key set itself, not of the token: the caller may be fine, we cannot tell (503). */
const KEY_SET_FAILURES = new Set(["ERR_JWKS_TIMEOUT", "ERR_JWKS_INVALID", "ERR_JOSE_GENERIC"]);

/** A verifier of caller JWTs (jose `jwtVerify`) for options config has checked; `now` in ms since the epoch. @throws on an invalid inline JWKS. */
export function createJwtVerifier(options: Extract<CallerAuthOptions, { mode: "jwt" }>, now: () => number = Date.now): (token: string) => Promise<CallerCheck> {
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
        key instanceof Uint8Array ? await jwtVerify(token, key, verifyOptions) : await jwtVerify(token, key, verifyOptions);
      if (subjects.size > 0 && (payload.sub === undefined || !subjects.has(payload.sub))) {
        return { ok: false, status: 403, reason: "subject not allowed" };
      }
      return { ok: true };
    } catch (error) {
      if (!(error instanceof errors.JOSEError)) return { ok: false, status: 503, reason: "key set unavailable" };
      if (KEY_SET_FAILURES.has(error.code)) return { ok: false, status: 503, reason: error.code };
      // Claim failures name the claim (never its value): "ERR_JWT_CLAIM_VALIDATION_FAILED aud".
      const claim = error instanceof errors.JWTClaimValidationFailed || error instanceof errors.JWTExpired ? ` ${error.claim}` : "";
      return { ok: false, status: 401, reason: `${error.code}${claim}` };
    }
  };
}
