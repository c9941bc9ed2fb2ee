import type { MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";

/** How callers prove who they are (DESIGN.md section 8). */
export type CallerAuthOptions = { mode: "none" } | { mode: "bearer"; tokens: string[] };

/**
 * Authenticates the caller before the body is read or any API call is made; failures are 401.
 * Tokens are compared in constant time (hashes compared byte by byte, as Hono's bearer-auth does).
 */
export function callerAuth(options: CallerAuthOptions): MiddlewareHandler {
  if (options.mode === "none") return async (_c, next) => next();
  if (options.tokens.length === 0 || options.tokens.some((t) => t.length === 0)) {
    throw new TypeError("bearer caller auth needs at least one non-empty token");
  }
  const expected = Promise.all(options.tokens.map(sha256));
  return async (c, next) => {
    const header = c.req.header("authorization") ?? "";
    const match = /^Bearer ([^\s]+)$/i.exec(header);
    if (match?.[1] === undefined || !(await matchesAny(match[1], await expected))) {
      throw new HTTPException(401, {
        res: new Response(JSON.stringify({ error: "unauthenticated caller" }), {
          status: 401,
          headers: { "content-type": "application/json", "www-authenticate": 'Bearer realm="gmsa-webhooks"' },
        }),
      });
    }
    await next();
  };
}

async function matchesAny(token: string, expected: Uint8Array[]): Promise<boolean> {
  const actual = await sha256(token);
  let found = false;
  // Every candidate is compared in full so timing does not tell which one (or whether any) matched.
  for (const candidate of expected) found = timingSafeEqual(actual, candidate) || found;
  return found;
}

async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
}

/** Constant-time comparison of two equal-length digests. */
export function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}
