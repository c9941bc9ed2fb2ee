/**
 * The Kubernetes client's variables (DESIGN.md section 9): kubeconfig, caches, timeouts, the JWT token source and the
 * clouds' token sources (cloud-token.ts).
 * Values that may be secrets are never echoed.
 */
import { readCloudToken, type CloudTokenSettings } from "./cloud-token.ts";
import { Reader, type Bindings } from "./reader.ts";
import { defaultOf } from "./variables.ts";

/** Size and lifetime of one cache; `false`, or 0 for either number, switches it off. */
export interface CacheSettings {
  ttlMs: number;
  maxEntries: number;
}

/** Credspec contents: CREDSPEC_CACHE_TTL_MS and CREDSPEC_CACHE_MAX's defaults. */
export const DEFAULT_CREDSPEC_CACHE: CacheSettings = Object.freeze({ ttlMs: defaultOf("CREDSPEC_CACHE_TTL_MS"), maxEntries: defaultOf("CREDSPEC_CACHE_MAX") });

/** Allowed access reviews: ACCESS_CACHE_TTL_MS and ACCESS_CACHE_MAX's defaults. */
export const DEFAULT_ACCESS_CACHE: CacheSettings = Object.freeze({ ttlMs: defaultOf("ACCESS_CACHE_TTL_MS"), maxEntries: defaultOf("ACCESS_CACHE_MAX") });

/** The JWT token source's settings (Workers, or any runtime without an exec plugin). */
export interface JwtSettings {
  /** PKCS8 PEM or private JWK JSON. Secret. */
  privateKey: string;
  alg?: string;
  keyId?: string;
  issuer: string;
  subject: string;
  audience: string[];
  lifetimeMs: number;
}

/** Typed, frozen settings. */
export interface KubeSettings {
  /** Node: a path list (`:` or `;` separated as the platform does); Workers: the kubeconfig YAML. Secret on Workers. */
  kubeconfig?: string;
  kubeContext?: string;
  /** Set when KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are (inside a pod). */
  inCluster?: { host: string; port: string };
  requestTimeoutMs: number;
  credSpecCache: CacheSettings | false;
  accessCache: CacheSettings | false;
  execTimeoutMs: number;
  /** Absent: 10% of the credential's lifetime within [5 s, 60 s]. */
  tokenRefreshSkewMs?: number;
  jwt?: JwtSettings;
  /** CLOUD_TOKEN and its source's variables. */
  cloudToken?: CloudTokenSettings;
}

function cache(read: Reader, ttl: "CREDSPEC_CACHE_TTL_MS" | "ACCESS_CACHE_TTL_MS", max: "CREDSPEC_CACHE_MAX" | "ACCESS_CACHE_MAX"): CacheSettings | false {
  const ttlMs = read.integer(ttl);
  const maxEntries = read.integer(max);
  return ttlMs === 0 || maxEntries === 0 ? false : { ttlMs, maxEntries };
}

function jwt(read: Reader): JwtSettings | undefined {
  const { problems } = read;
  const names = ["JWT_PRIVATE_KEY", "JWT_ISSUER", "JWT_SUBJECT", "JWT_AUDIENCE"] as const;
  const optional = ["JWT_ALG", "JWT_KEY_ID", "JWT_LIFETIME_MS"] as const;
  const given = [...names, ...optional].filter((name) => read.optional(name) !== undefined);
  if (given.length === 0) return undefined;
  const missing = names.filter((name) => read.optional(name) === undefined);
  if (missing.length > 0) problems.push(`${missing.join(", ")} must be set too when ${given.join(", ")} is set`);
  const privateKey = read.optional("JWT_PRIVATE_KEY") ?? "";
  if (privateKey.includes("-----BEGIN RSA PRIVATE KEY-----") || privateKey.includes("-----BEGIN EC PRIVATE KEY-----")) {
    problems.push("JWT_PRIVATE_KEY must be PKCS8 (-----BEGIN PRIVATE KEY-----); convert with openssl pkcs8 -topk8 -nocrypt");
  } else if (privateKey !== "" && !privateKey.includes("-----BEGIN PRIVATE KEY-----") && !isPrivateJwk(privateKey)) {
    problems.push("JWT_PRIVATE_KEY must be a PKCS8 PEM or a private JWK (JSON with \"d\")");
  }
  const issuer = read.optional("JWT_ISSUER") ?? "";
  if (issuer !== "" && !/^https:\/\/[^\s]+$/.test(issuer)) problems.push("JWT_ISSUER must be an https URL, as Kubernetes JWT authenticators require");
  const audience = read.items("JWT_AUDIENCE");
  const lifetimeMs = read.integer("JWT_LIFETIME_MS");
  const settings: JwtSettings = { privateKey, issuer, subject: read.optional("JWT_SUBJECT") ?? "", audience, lifetimeMs };
  const alg = read.optional("JWT_ALG");
  if (alg !== undefined) settings.alg = alg;
  const keyId = read.optional("JWT_KEY_ID");
  if (keyId !== undefined) settings.keyId = keyId;
  return settings;
}

function isPrivateJwk(value: string): boolean {
  try {
    const jwk = JSON.parse(value) as unknown;
    return typeof jwk === "object" && jwk !== null && typeof (jwk as { d?: unknown }).d === "string";
  } catch {
    return false;
  }
}

/** Reads the Kubernetes client's variables; problems go to the reader, unusable values fall back to defaults. */
export function readKubeSettings(read: Reader): Readonly<KubeSettings> {
  const settings: KubeSettings = {
    requestTimeoutMs: read.integer("KUBE_REQUEST_TIMEOUT_MS"),
    credSpecCache: cache(read, "CREDSPEC_CACHE_TTL_MS", "CREDSPEC_CACHE_MAX"),
    accessCache: cache(read, "ACCESS_CACHE_TTL_MS", "ACCESS_CACHE_MAX"),
    execTimeoutMs: read.integer("EXEC_TIMEOUT_MS"),
  };
  // KUBECONFIG is kept as given: only the runtime knows whether it is a path list or YAML.
  const kubeconfig = read.raw("KUBECONFIG");
  if (kubeconfig !== undefined) settings.kubeconfig = kubeconfig;
  const kubeContext = read.optional("KUBE_CONTEXT");
  if (kubeContext !== undefined) settings.kubeContext = kubeContext;
  const host = read.optional("KUBERNETES_SERVICE_HOST");
  const port = read.optional("KUBERNETES_SERVICE_PORT");
  if (host !== undefined && port !== undefined) settings.inCluster = { host, port };
  const skew = read.optionalInteger("TOKEN_REFRESH_SKEW_MS");
  if (skew !== undefined) settings.tokenRefreshSkewMs = skew;
  const jwtSettings = jwt(read);
  if (jwtSettings !== undefined) settings.jwt = jwtSettings;
  const cloudToken = readCloudToken(read);
  if (cloudToken !== undefined) settings.cloudToken = cloudToken;
  return Object.freeze(settings);
}

/** The Kubernetes client's section alone (tests of the clients build their settings with it). */
export function parseKubeSettings(env: Bindings): { settings: Readonly<KubeSettings>; problems: string[] } {
  const problems: string[] = [];
  return { settings: readKubeSettings(new Reader(env, problems)), problems };
}
