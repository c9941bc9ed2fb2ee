/**
 * Short-lived JWTs minted with jose, for runtimes that cannot spawn an exec plugin (Workers). The cluster trusts the
 * issuer through a JWT authenticator (AuthenticationConfiguration `jwt[]`) reading the discovery and JWKS built here.
 */
import { SignJWT, calculateJwkThumbprint, exportJWK, importJWK, importPKCS8, type CryptoKey, type JWK } from "jose";
import { createCredentialCache, type CacheSharingOptions } from "./cache.ts";
import type { Credential, TokenSource } from "./token-source.ts";

/** The signing key and its naming. */
export interface JwtKeyOptions {
  /** A PKCS8 PEM (`-----BEGIN PRIVATE KEY-----`) or a private JWK as JSON text. */
  privateKey: string;
  /** JWS algorithm. Default: the JWK's `alg`, else `RS256`. */
  alg?: string | undefined;
  /** `kid` header and JWKS entry. Default: the RFC 7638 thumbprint of the public key. */
  keyId?: string | undefined;
}

/** The JWT_* settings: the key, and the claims the cluster's JWT authenticator checks. */
export interface JwtSettings extends JwtKeyOptions {
  /** `iss`: the authenticator's `issuer.url`. */
  issuer: string;
  /** `sub`: whatever username the authenticator's claim mapping turns it into. */
  subject: string;
  /** `aud`: one of the authenticator's `issuer.audiences`. */
  audience: string | string[];
}

const PRIVATE_JWK_MEMBERS = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"] as const;

function parseJwkText(privateKey: string): JWK | undefined {
  if (!privateKey.trimStart().startsWith("{")) return undefined;
  return JSON.parse(privateKey) as JWK;
}

/** The algorithm a key signs with: explicit, else the JWK's, else RS256. */
export function resolveJwtAlg(options: JwtKeyOptions): string {
  return options.alg ?? parseJwkText(options.privateKey)?.alg ?? "RS256";
}

/** The public JWK of the signing key (private members removed), with `kid`, `alg` and `use: "sig"`. */
export async function buildPublicJwk(options: JwtKeyOptions): Promise<JWK> {
  const alg = resolveJwtAlg(options);
  const jwk =
    parseJwkText(options.privateKey) ??
    (await exportJWK(await importPKCS8(options.privateKey, alg, { extractable: true })));
  const publicJwk: JWK = { ...jwk };
  for (const member of PRIVATE_JWK_MEMBERS) delete publicJwk[member];
  delete publicJwk.key_ops;
  return { ...publicJwk, kid: options.keyId ?? (await calculateJwkThumbprint(publicJwk)), alg, use: "sig" };
}

/** The JWKS (`{ keys: [publicJwk] }`) a JWT authenticator fetches from `jwks_uri`. */
export async function buildJwks(options: JwtKeyOptions): Promise<{ keys: JWK[] }> {
  return { keys: [await buildPublicJwk(options)] };
}

/** The OpenID discovery document for `issuer`; `jwksUri` defaults to `<issuer>/openid/v1/jwks`, as kube-apiserver serves it. */
export function buildOpenIdDiscovery(options: {
  issuer: string;
  jwksUri?: string;
  alg?: string;
}): Record<string, unknown> {
  return {
    issuer: options.issuer,
    jwks_uri: options.jwksUri ?? `${options.issuer.replace(/\/+$/, "")}/openid/v1/jwks`,
    response_types_supported: ["id_token"],
    subject_types_supported: ["public"],
    id_token_signing_alg_values_supported: [options.alg ?? "RS256"],
  };
}

/**
 * A {@link TokenSource} minting a fresh JWT whenever the cached one nears expiry. `lifetimeMs`, at least a second, defaults
 * to 10 minutes: short, so a leaked token is soon useless, and below the caps JWT authenticators commonly set.
 */
export function createJwtTokenSource(
  options: JwtSettings & CacheSharingOptions & { lifetimeMs?: number },
): TokenSource {
  const lifetimeMs = options.lifetimeMs ?? 600_000;
  const alg = resolveJwtAlg(options);
  // Only a settled key is shared, never the promise of one (see shareInFlight).
  let key: CryptoKey | Uint8Array | undefined;
  let keyId = options.keyId;

  async function load(_: unknown, requestedAt: number): Promise<Credential> {
    const jwk = parseJwkText(options.privateKey);
    key ??= jwk === undefined ? await importPKCS8(options.privateKey, alg) : await importJWK(jwk, alg);
    keyId ??= (await buildPublicJwk(options)).kid;
    const iat = Math.floor(requestedAt / 1000);
    const exp = iat + Math.floor(lifetimeMs / 1000);
    const token = await new SignJWT({})
      .setProtectedHeader({ alg, typ: "JWT", ...(keyId === undefined ? {} : { kid: keyId }) })
      .setIssuer(options.issuer)
      .setSubject(options.subject)
      .setAudience(options.audience)
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .sign(key);
    return { token, expirationTimestamp: new Date(exp * 1000).toISOString() };
  }

  return createCredentialCache({ ...options, load, describe: `JWT issuer "${options.issuer}"` });
}
