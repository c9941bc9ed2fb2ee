/** How caller auth refuses a call (every mode, and GET /metrics), and bearer tokens as hono/bearer-auth checks them. */
import type { MiddlewareHandler } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "../http/env.ts";
import type { Logger } from "../log.ts";

/** The challenge of a 401 where a bearer token is expected (RFC 6750 section 3). */
const CHALLENGE = 'Bearer realm="gmsa-webhooks"';
const REFUSALS = {
  401: "unauthenticated caller",
  403: "caller not allowed",
  503: "cannot verify the caller now",
} as const;

/** Logs the refusal (never the credential) and throws it as the HTTPException the error handler sends as it is. */
export function refuseCaller(logger: Logger, mode: string, status: 401 | 403 | 503, reason: string): never {
  logger.log("warn", "caller not authenticated", { mode, status, reason });
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (status === 401 && (mode === "bearer" || mode === "jwt" || mode === "metrics"))
    headers["www-authenticate"] = CHALLENGE;
  if (status === 503) headers["retry-after"] = "5";
  throw new HTTPException(status, {
    res: new Response(JSON.stringify({ error: REFUSALS[status] }), { status, headers }),
  });
}

/** Hono's `timingSafeEqual` compares in constant time anyway: its default SHA-256 `hashFunction` protected nothing and was most of a warm review's CPU on Node. */
export const compareTokensAsIs = (token: string): string => token;

/** hono/bearer-auth with our refusals, logged with `mode`: all 401, a malformed header too (hono says 400); `tokens`, or a verifier that refuses itself. */
export function bearerTokens(
  tokens: readonly string[] | ((token: string) => Promise<boolean>),
  logger: Logger,
  mode: "bearer" | "jwt" | "metrics",
): MiddlewareHandler<AppEnv> {
  const refused = (reason: string) => ({ message: () => refuseCaller(logger, mode, 401, reason) });
  return bearerAuth({
    ...(typeof tokens === "function" ? { verifyToken: tokens } : { token: [...tokens] }),
    hashFunction: compareTokensAsIs,
    noAuthenticationHeader: refused("no bearer token"),
    invalidAuthenticationHeader: refused("malformed bearer token"),
    invalidToken: refused("unknown bearer token"),
  });
}
