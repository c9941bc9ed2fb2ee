/** Caller authentication as Hono middleware, before the body is read (the modes: docs/security.md). */
import type { Context, MiddlewareHandler } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import { HTTPException } from "hono/http-exception";
import { timingSafeEqual } from "hono/utils/buffer";
import type { Logger } from "../log.ts";
// Types only: the verifier itself (and jose) is loaded only where CALLER_AUTH=jwt.
import type { CallerCheck, JwtCallerAuthOptions } from "./caller-auth-jwt.ts";
import type { AppEnv } from "./env.ts";

/** The caller authentication modes (docs/security.md, The modes). */
export const CALLER_AUTH_MODES = ["none", "bearer", "jwt", "path", "mtls"] as const;
export type CallerAuthMode = (typeof CALLER_AUTH_MODES)[number];

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

/** How callers prove who they are, as parsed from CALLER_AUTH and CALLER_AUTH_* (shared/config/caller-auth.ts). */
export type CallerAuthOptions =
  | { mode: "none" }
  | { mode: "bearer"; tokens: readonly string[] }
  | JwtCallerAuthOptions
  /** The functions answer at `/<function>/<secret>` only; two secrets while one replaces the other. */
  | { mode: "path"; secrets: readonly string[] }
  /** Node server only: the TLS layer verifies the certificate against `clientCaFile` (functions/node/server.ts). */
  | { mode: "mtls"; clientCaFile: string; clientNames: readonly string[] };

/** The connection's client certificate as the Node server saw it: sent, verified against the CA (else OpenSSL's `error`), its CNs. */
export type ClientCertificateReader = (
  c: Context<AppEnv>,
) => { presented: boolean; authorized: boolean; error: string | undefined; commonNames: string[] } | undefined;

/** The `logger` of refusals (never the credential), the clock of JWT `exp` / `nbf` (epoch ms), the Node server's certificate reader. */
export type CallerAuthDeps = { logger: Logger; now?: () => number; clientCertificate?: ClientCertificateReader };

/**
 * The middleware of `options.mode`, for options shared/config has checked: 401 unauthenticated, 403 not an allowed
 * caller (JWT subject, certificate name), 503 when a remote JWKS cannot be had.
 */
export function callerAuth(options: CallerAuthOptions, deps: CallerAuthDeps): MiddlewareHandler<AppEnv> {
  const { logger } = deps;
  switch (options.mode) {
    case "none":
      return (_c, next) => next();
    case "bearer":
      return bearerTokens(options.tokens, logger, "bearer");
    case "jwt": {
      // jose is loaded at setup and only where this mode is configured (a chunk of its own in the Node bundles).
      const verifier = import("./caller-auth-jwt.ts")
        .then(({ createJwtVerifier }) => createJwtVerifier(options, deps.now))
        .catch(
          () => (): Promise<CallerCheck> =>
            Promise.resolve({ ok: false, status: 503, reason: "jwt verifier unavailable" }),
        );
      const verifyToken = async (token: string): Promise<boolean> => {
        const result = await (await verifier)(token);
        if (!result.ok) refuseCaller(logger, "jwt", result.status, result.reason);
        return true;
      };
      return bearerTokens(verifyToken, logger, "jwt");
    }
    case "path":
      return async (c, next) => {
        const presented = c.req.param("secret");
        if (presented === undefined) refuseCaller(logger, "path", 401, "no path secret");
        // Every secret is compared in full, so the time taken does not tell which one matched.
        let found = false;
        for (const secret of options.secrets)
          found = (await timingSafeEqual(secret, presented, compareTokensAsIs)) || found;
        if (!found) refuseCaller(logger, "path", 401, "wrong path secret");
        await next();
      };
    case "mtls": {
      const names = new Set(options.clientNames);
      // TLS verified the certificate against the configured CA; here we only read the verdict and the name. Without a
      // reader (config allows mtls on the Node server only, which has one) no certificate is seen: every caller is refused.
      return async (c, next) => {
        const cert = deps.clientCertificate?.(c);
        if (cert === undefined || !cert.presented) refuseCaller(logger, "mtls", 401, "no client certificate");
        if (!cert.authorized) refuseCaller(logger, "mtls", 401, cert.error ?? "client certificate not verified");
        if (names.size > 0 && !cert.commonNames.some((cn) => names.has(cn)))
          refuseCaller(logger, "mtls", 403, "client certificate name not allowed");
        await next();
      };
    }
  }
}

/** The challenge of a 401 where a bearer token is expected (RFC 6750 section 3). */
const CHALLENGE = 'Bearer realm="gmsa-webhooks"';
const REFUSALS = {
  401: "unauthenticated caller",
  403: "caller not allowed",
  503: "cannot verify the caller now",
} as const;

/** Logs the refusal (never the credential) and throws it as the HTTPException the error handler sends as it is. */
function refuseCaller(logger: Logger, mode: string, status: 401 | 403 | 503, reason: string): never {
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
const compareTokensAsIs = (token: string): string => token;

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
