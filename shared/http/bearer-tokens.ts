import type { MiddlewareHandler } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import { HTTPException } from "hono/http-exception";
import type { Logger } from "../log.ts";
import type { AppEnv } from "./env.ts";

/** The challenge of a 401 where a bearer token is expected (RFC 6750 section 3). */
const CHALLENGE = 'Bearer realm="gmsa-webhooks"';

/**
 * The `hashFunction` given to Hono's constant-time comparison (hono/bearer-auth, `timingSafeEqual`): the token as
 * it is. Hono compares the presented and the expected strings themselves in constant time (its
 * `constantTimeEqualString`), so the SHA-256 digests it takes first by default add no protection; on Node they cost
 * two WebCrypto jobs on the thread pool and several promise hops per token and request, the largest share of a warm
 * review's CPU in a profile of the Node server.
 */
export const compareTokensAsIs = (token: string): string => token;

const REFUSALS = { 401: "unauthenticated caller", 403: "caller not allowed", 503: "cannot verify the caller now" } as const;

/**
 * The answer to a caller that is refused: `{"error": ...}` with the status, the Bearer challenge on a 401 of a mode
 * that takes bearer tokens, and Retry-After on a 503. It names no credential.
 */
function refusal(mode: string, status: 401 | 403 | 503): Response {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (status === 401 && (mode === "bearer" || mode === "jwt" || mode === "metrics")) headers["www-authenticate"] = CHALLENGE;
  if (status === 503) headers["retry-after"] = "5";
  return new Response(JSON.stringify({ error: REFUSALS[status] }), { status, headers });
}

/**
 * Refuses the caller: logs the mode, status and reason code (never the credential) and throws the
 * {@link refusal} as an HTTPException, which the app's error handler sends as it is.
 */
export function refuseCaller(logger: Logger, mode: string, status: 401 | 403 | 503, reason: string): never {
  logger.log("warn", "caller not authenticated", { mode, status, reason });
  throw new HTTPException(status, { res: refusal(mode, status) });
}

/**
 * hono/bearer-auth for `tokens` (several while one replaces another; compared in constant time), with our refusal:
 * every failure is a 401 (a malformed Authorization header too, where hono answers 400), logged with `mode`
 * (`bearer` for CALLER_AUTH, `metrics` for METRICS_TOKENS).
 * @throws TypeError when `tokens` is empty or holds an empty token.
 */
export function bearerTokens(tokens: readonly string[], logger: Logger, mode: "bearer" | "metrics"): MiddlewareHandler<AppEnv> {
  if (tokens.length === 0 || tokens.some((t) => t.length === 0)) throw new TypeError(`${mode} bearer auth needs at least one non-empty token`);
  const refused = (reason: string) => ({
    wwwAuthenticateHeader: CHALLENGE,
    message: (): Response => {
      logger.log("warn", "caller not authenticated", { mode, status: 401, reason });
      return refusal(mode, 401);
    },
  });
  return bearerAuth({
    token: [...tokens],
    hashFunction: compareTokensAsIs,
    noAuthenticationHeader: refused("no bearer token"),
    invalidAuthenticationHeader: refused("malformed bearer token"),
    invalidToken: refused("unknown bearer token"),
  });
}
