/**
 * The environment variables of the Kubernetes client, parsed once at start-up with every problem reported
 * together (DESIGN.md section 9). Tabled in README.md. Values that may be secrets are never echoed.
 */
import { DEFAULT_ACCESS_CACHE, DEFAULT_CREDSPEC_CACHE, type CacheSettings } from "./cache-settings.ts";

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
}

type Env = Record<string, string | undefined>;

/** A non-empty value, trimmed, or undefined. */
function text(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === "" ? undefined : value;
}

function integer(env: Env, name: string, fallback: number, min: number, problems: string[]): number {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < min) {
    problems.push(`${name} must be a whole number >= ${min}, got ${JSON.stringify(raw)}`);
    return fallback;
  }
  return value;
}

function cache(env: Env, prefix: string, fallback: CacheSettings, problems: string[]): CacheSettings | false {
  const ttlMs = integer(env, `${prefix}_TTL_MS`, fallback.ttlMs, 0, problems);
  const maxEntries = integer(env, `${prefix}_MAX`, fallback.maxEntries, 0, problems);
  return ttlMs === 0 || maxEntries === 0 ? false : { ttlMs, maxEntries };
}

function jwt(env: Env, problems: string[]): JwtSettings | undefined {
  const names = ["JWT_PRIVATE_KEY", "JWT_ISSUER", "JWT_SUBJECT", "JWT_AUDIENCE"] as const;
  const optional = ["JWT_ALG", "JWT_KEY_ID", "JWT_LIFETIME_MS"];
  const given = [...names, ...optional].filter((name) => text(env, name) !== undefined);
  if (given.length === 0) return undefined;
  const missing = names.filter((name) => text(env, name) === undefined);
  if (missing.length > 0) problems.push(`${missing.join(", ")} must be set too when ${given.join(", ")} is set`);
  const privateKey = text(env, "JWT_PRIVATE_KEY") ?? "";
  if (privateKey.includes("-----BEGIN RSA PRIVATE KEY-----") || privateKey.includes("-----BEGIN EC PRIVATE KEY-----")) {
    problems.push("JWT_PRIVATE_KEY must be PKCS8 (-----BEGIN PRIVATE KEY-----); convert with openssl pkcs8 -topk8 -nocrypt");
  } else if (privateKey !== "" && !privateKey.includes("-----BEGIN PRIVATE KEY-----") && !isPrivateJwk(privateKey)) {
    problems.push("JWT_PRIVATE_KEY must be a PKCS8 PEM or a private JWK (JSON with \"d\")");
  }
  const issuer = text(env, "JWT_ISSUER") ?? "";
  if (issuer !== "" && !/^https:\/\/[^\s]+$/.test(issuer)) problems.push("JWT_ISSUER must be an https URL, as Kubernetes JWT authenticators require");
  const audience = (text(env, "JWT_AUDIENCE") ?? "").split(",").map((entry) => entry.trim()).filter((entry) => entry !== "");
  const lifetimeMs = integer(env, "JWT_LIFETIME_MS", 600_000, 10_000, problems);
  const settings: JwtSettings = { privateKey, issuer, subject: text(env, "JWT_SUBJECT") ?? "", audience, lifetimeMs };
  const alg = text(env, "JWT_ALG");
  if (alg !== undefined) settings.alg = alg;
  const keyId = text(env, "JWT_KEY_ID");
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

/**
 * Parses the Kubernetes client's variables. Never throws: every problem is in `problems`, and `settings` holds
 * defaults where a value was unusable.
 */
export function parseKubeSettings(env: Env): { settings: KubeSettings; problems: string[] } {
  const problems: string[] = [];
  const settings: KubeSettings = {
    requestTimeoutMs: integer(env, "KUBE_REQUEST_TIMEOUT_MS", 5_000, 1, problems),
    credSpecCache: cache(env, "CREDSPEC_CACHE", DEFAULT_CREDSPEC_CACHE, problems),
    accessCache: cache(env, "ACCESS_CACHE", DEFAULT_ACCESS_CACHE, problems),
    execTimeoutMs: integer(env, "EXEC_TIMEOUT_MS", 15_000, 1, problems),
  };
  // KUBECONFIG is kept as given: only the adapter knows whether it is a path list or YAML.
  const kubeconfig = env["KUBECONFIG"];
  if (kubeconfig !== undefined && kubeconfig.trim() !== "") settings.kubeconfig = kubeconfig;
  const kubeContext = text(env, "KUBE_CONTEXT");
  if (kubeContext !== undefined) settings.kubeContext = kubeContext;
  const host = text(env, "KUBERNETES_SERVICE_HOST");
  const port = text(env, "KUBERNETES_SERVICE_PORT");
  if (host !== undefined && port !== undefined) settings.inCluster = { host, port };
  if (text(env, "TOKEN_REFRESH_SKEW_MS") !== undefined) {
    settings.tokenRefreshSkewMs = integer(env, "TOKEN_REFRESH_SKEW_MS", 0, 0, problems);
  }
  const jwtSettings = jwt(env, problems);
  if (jwtSettings !== undefined) settings.jwt = jwtSettings;
  return { settings: Object.freeze(settings), problems };
}
