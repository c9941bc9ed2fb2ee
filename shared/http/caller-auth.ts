import type { Logger } from "../log.ts";
import { checkJwtCallerOptions, type CallerCheck, type JwtCallerOptions } from "./caller-auth-jwt-options.ts";
import { jsonReply, type HttpReply } from "./reply.ts";
import { createSecretMatcher, type Sha256 } from "./timing-safe-equal.ts";

export type { CallerCheck, JwtCallerOptions } from "./caller-auth-jwt-options.ts";

/** The caller authentication modes (DESIGN.md section 8; what each protects against: README.md, Security). */
export const CALLER_AUTH_MODES = ["none", "bearer", "jwt", "path", "mtls"] as const;
export type CallerAuthMode = (typeof CALLER_AUTH_MODES)[number];

/** How callers prove who they are, as parsed from CALLER_AUTH and CALLER_AUTH_* (shared/config/caller-auth.ts). */
export type CallerAuthOptions =
  | { mode: "none" }
  | { mode: "bearer"; tokens: readonly string[] }
  | ({ mode: "jwt" } & JwtCallerOptions)
  /** The functions answer at `/<function>/<secret>` only; two secrets while one replaces the other. */
  | { mode: "path"; secrets: readonly string[] }
  /** Node server only: the TLS layer verifies the certificate against `clientCaFile` (functions/node/server.ts). */
  | { mode: "mtls"; clientCaFile: string; clientNames: readonly string[] };

/** The client certificate of the connection, as the Node server saw it (functions/node/client-certificate.ts). */
export interface ClientCertificate {
  /** Whether the client sent a certificate at all. */
  presented: boolean;
  /** Whether it chains to the configured CA and is within its validity period. */
  authorized: boolean;
  /** OpenSSL's reason when not authorized, e.g. `UNABLE_TO_VERIFY_LEAF_SIGNATURE`. */
  error: string | undefined;
  /** The subject's CN values. */
  commonNames: string[];
}

export interface CallerAuthDeps {
  /** Failures are logged with the mode and a reason code: never the token, the path or the certificate. */
  logger?: Logger;
  /** The clock for JWT `exp` / `nbf`, in ms since the epoch. */
  now?: () => number;
  /**
   * Whether the runtime reads each connection's client certificate into {@link CallerRequest.clientCertificate}:
   * required for `mtls` (only the Node server can).
   */
  clientCertificates?: boolean;
  /** The SHA-256 used to compare bearer tokens and path secrets. Default WebCrypto; the Node adapter passes node:crypto's. */
  digest?: Sha256;
}

/** What caller auth reads of a request: headers, the path secret, the TLS connection. */
export interface CallerRequest {
  /** A request header by its lower-case name. */
  header(name: string): string | undefined;
  /** `path` mode: the path segment after the function's name, decoded; undefined without one. */
  pathSecret: string | undefined;
  /** `mtls`: the connection's client certificate (undefined when the runtime cannot tell). */
  clientCertificate(): ClientCertificate | undefined;
}

/** A caller check: ok, or the status (401, 403, 503) and a reason code for our log. */
type CallerAuthCheck = (request: CallerRequest) => Promise<CallerCheck>;

/** Undefined when the caller is authenticated, else the refusal to send. */
export type CallerGate = (request: CallerRequest) => Promise<HttpReply | undefined>;

/**
 * Authenticates the caller from headers, the path or the TLS connection only, before the body is read or any
 * API call is made. 401 when not authenticated, 403 when authenticated but not an allowed caller (JWT subject,
 * certificate name), 503 when a remote JWKS cannot be had. Options are checked here, once.
 * @returns the check: undefined when the caller is authenticated, else the refusal to send (logged here with the
 *   mode and a reason code, never the credential).
 * @throws TypeError on options that cannot work (no tokens, short path secret, `mtls` without
 *   `clientCertificates`, unsafe JWT algorithms).
 */
export function createCallerCheck(options: CallerAuthOptions, deps: CallerAuthDeps = {}): CallerGate {
  const check = createCheck(options, deps);
  return async (request) => {
    const result = await check(request);
    if (result.ok) return undefined;
    deps.logger?.log("warn", "caller not authenticated", { mode: options.mode, status: result.status, reason: result.reason });
    return refusal(options.mode, result.status);
  };
}

function createCheck(options: CallerAuthOptions, deps: CallerAuthDeps): CallerAuthCheck {
  switch (options.mode) {
    case "none":
      return () => Promise.resolve({ ok: true });
    case "bearer": {
      if (options.tokens.length === 0 || options.tokens.some((t) => t.length === 0)) {
        throw new TypeError("bearer caller auth needs at least one non-empty token");
      }
      const matches = createSecretMatcher(options.tokens, deps.digest);
      return async (request) => {
        const token = readBearerToken(request);
        if (token === undefined) return { ok: false, status: 401, reason: "no bearer token" };
        return (await matches(token)) ? { ok: true } : { ok: false, status: 401, reason: "unknown bearer token" };
      };
    }
    case "jwt": {
      checkJwtCallerOptions(options);
      // jose is loaded at setup, not per request, and only where this mode is configured (a chunk of its own in the
      // Node-based bundles).
      const verifier = import("./caller-auth-jwt.ts").then(({ createJwtVerifier }) => createJwtVerifier(options, deps.now));
      verifier.catch(() => undefined);
      return async (request) => {
        const token = readBearerToken(request);
        if (token === undefined) return { ok: false, status: 401, reason: "no bearer token" };
        return verifier.then(
          (verify) => verify(token),
          (): CallerCheck => ({ ok: false, status: 503, reason: "jwt verifier unavailable" }),
        );
      };
    }
    case "path": {
      if (options.secrets.length === 0 || options.secrets.some((s) => s.length < 32)) {
        throw new TypeError("path caller auth needs secrets of at least 32 characters");
      }
      const matches = createSecretMatcher(options.secrets, deps.digest);
      return async (request) => {
        const presented = request.pathSecret;
        if (presented === undefined) return { ok: false, status: 401, reason: "no path secret" };
        return (await matches(presented)) ? { ok: true } : { ok: false, status: 401, reason: "wrong path secret" };
      };
    }
    case "mtls": {
      if (deps.clientCertificates !== true) {
        throw new TypeError("mtls caller auth needs the Node server (on Cloudflare Workers, configure mTLS at Cloudflare)");
      }
      const names = new Set(options.clientNames);
      return (request) => Promise.resolve(checkClientCertificate(request.clientCertificate(), names));
    }
  }
}

/** The certificate was verified by TLS against the configured CA; here we only read the verdict and the name. */
export function checkClientCertificate(cert: ClientCertificate | undefined, names: ReadonlySet<string>): CallerCheck {
  if (cert === undefined || !cert.presented) return { ok: false, status: 401, reason: "no client certificate" };
  if (!cert.authorized) return { ok: false, status: 401, reason: cert.error ?? "client certificate not verified" };
  if (names.size > 0 && !cert.commonNames.some((cn) => names.has(cn))) {
    return { ok: false, status: 403, reason: "client certificate name not allowed" };
  }
  return { ok: true };
}

/** The token of an `Authorization: Bearer <token>` header (RFC 6750 section 2.1), or undefined. */
function readBearerToken(request: CallerRequest): string | undefined {
  const match = /^Bearer +([^\s]+) *$/i.exec(request.header("authorization") ?? "");
  return match?.[1];
}

function refusal(mode: CallerAuthMode, status: 401 | 403 | 503): HttpReply {
  const headers: Record<string, string> = {};
  if (status === 401 && (mode === "bearer" || mode === "jwt")) headers["www-authenticate"] = 'Bearer realm="gmsa-webhooks"';
  if (status === 503) headers["retry-after"] = "5";
  const error = status === 401 ? "unauthenticated caller" : status === 403 ? "caller not allowed" : "cannot verify the caller now";
  return jsonReply(status, { error }, headers);
}
