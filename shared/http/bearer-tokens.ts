import type { MiddlewareHandler } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import { HTTPException } from "hono/http-exception";
import type { Logger } from "../log.ts";
import type { AppEnv } from "./env.ts";

/** The challenge of a 401 where a bearer token is expected (RFC 6750 section 3). */
const CHALLENGE = 'Bearer realm="gmsa-webhooks"';

/**
 * The `hashFunction` for Hono's `timingSafeEqual`: the token as it is. Hono compares the strings in constant time
 * anyway, so its default SHA-256 digests add no protection, while on Node they were the largest share of a warm
 * review's CPU.
 */
export const compareTokensAsIs = (token: string): string => token;

const REFUSALS = { 401: "unauthenticated caller", 403: "caller not allowed", 503: "cannot verify the caller now" } as const;

/** `{"error": ...}` with the status, the Bearer challenge on a 401 of a bearer mode, Retry-After on a 503. */
function refusal(mode: string, status: 401 | 403 | 503): Response {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (status === 401 && (mode === "bearer" || mode === "jwt" || mode === "metrics")) headers["www-authenticate"] = CHALLENGE;
  if (status === 503) headers["retry-after"] = "5";
  return new Response(JSON.stringify({ error: REFUSALS[status] }), { status, headers });
}

/** Logs the refusal (never the credential) and throws it as an HTTPException the error handler sends as it is. */
export function refuseCaller(logger: Logger, mode: string, status: 401 | 403 | 503, reason: string): never {
  logger.log("warn", "caller not authenticated", { mode, status, reason });
  throw new HTTPException(status, { res: refusal(mode, status) });
}

/**
 * hono/bearer-auth for `tokens` (several while one replaces another) with our refusal: every failure is a 401 (a
 * malformed header too, where hono answers 400), logged with `mode` (CALLER_AUTH or METRICS_TOKENS).
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
