/**
 * Every environment variable (Node environment, Worker vars and secrets) with its default and bounds, once, as
 * docs/configuration.md tables them; internal tuning (timeouts, cache sizes) is a constant beside the code it tunes.
 */
import { DEFAULT_ACCESS_CACHE_TTL_MS, DEFAULT_CREDSPEC_CACHE_TTL_MS } from "../kube/client.ts";
import { LOG_LEVELS } from "../log.ts";
import { ENFORCEMENT_MODES, REQUESTING_USER_MODES } from "../policy/facts.ts";

/** The functions a deployment can serve (docs/security.md, Least privilege per function); each Worker environment is named after one. */
export const FUNCTION_NAMES = ["expand", "authorize"] as const;
export type FunctionName = (typeof FUNCTION_NAMES)[number];

/** Signature algorithms with a public key: CALLER_AUTH=jwt's default, so no shared secret is needed to verify. */
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
/** The algorithm CALLER_AUTH=jwt accepts with a shared secret when CALLER_AUTH_JWT_ALGORITHMS is unset. */
export const DEFAULT_SECRET_JWT_ALGORITHM = "HS256";

/**
 * A variable's kind, default and bounds. Text: `documented` is docs/configuration.md's default column; `secret` values
 * never reach a message; `platform`: the workload's identity (Lambda's AWS keys), which plugins still inherit.
 */
export type Variable =
  | { kind: "integer"; default: number; min: number; max?: number }
  | { kind: "text"; documented: string; default?: string; secret?: boolean; platform?: boolean }
  | { kind: "boolean"; default: boolean }
  | { kind: "oneOf"; values: readonly string[]; default: string }
  | { kind: "list"; values: readonly string[]; default: readonly string[] };
type TextVariable = Extract<Variable, { kind: "text" }>;

const text = (documented = "", secret = false): TextVariable =>
  secret ? { kind: "text", documented, secret } : { kind: "text", documented };
const platformSecret = (documented: string): TextVariable => ({
  kind: "text",
  documented,
  secret: true,
  platform: true,
});
const textDefault = (fallback: string): TextVariable & { default: string } => ({
  kind: "text",
  documented: `\`${fallback}\``,
  default: fallback,
});
const integer = (fallback: number, min: number, max?: number): Extract<Variable, { kind: "integer" }> =>
  max === undefined ? { kind: "integer", default: fallback, min } : { kind: "integer", default: fallback, min, max };

/** Name -> kind, default and bounds. docs/configuration.md has a row for each. */
export const VARIABLES = {
  // Caller authentication (docs/security.md).
  CALLER_AUTH: text("(required)"),
  CALLER_AUTH_TOKENS: text("", true),
  CALLER_AUTH_JWT_ISSUER: text(),
  CALLER_AUTH_JWT_AUDIENCE: text(),
  CALLER_AUTH_JWT_SUBJECTS: text("any"),
  CALLER_AUTH_JWT_JWKS_URL: text(),
  CALLER_AUTH_JWT_JWKS: text(),
  CALLER_AUTH_JWT_SECRET: text("", true),
  CALLER_AUTH_JWT_ALGORITHMS: text(
    `${ASYMMETRIC_JWT_ALGORITHMS.join(", ")}; with a secret: ${DEFAULT_SECRET_JWT_ALGORITHM}`,
  ),
  CALLER_AUTH_PATH_SECRET: text("", true),
  CALLER_AUTH_CLIENT_CA_FILE: text(),
  CALLER_AUTH_CLIENT_NAMES: text("any"),
  // Prometheus' scrape credential, never the admission one (docs/operations.md, Metrics).
  METRICS_TOKENS: text("none: /metrics is open", true),
  // The app and the Node server.
  FUNCTIONS: { kind: "list", values: FUNCTION_NAMES, default: FUNCTION_NAMES },
  PORT: integer(8443, 0, 65535),
  HOST: text("every interface"),
  TLS_CERT_FILE: text(),
  TLS_KEY_FILE: text(),
  SHUTDOWN_DELAY_SECONDS: integer(5, 0, 300),
  RANDOM_HOSTNAME: { kind: "boolean", default: false },
  LOG_LEVEL: { kind: "oneOf", values: LOG_LEVELS, default: "info" },
  REVIEW_REQUESTING_USER: { kind: "oneOf", values: REQUESTING_USER_MODES, default: "off" },
  ENFORCEMENT: { kind: "oneOf", values: ENFORCEMENT_MODES, default: "deny" },
  // The Kubernetes client.
  KUBECONFIG: text("Node: `~/.kube/config`, else the in-cluster service account", true),
  KUBE_CONTEXT: text("the kubeconfig's `current-context`"),
  KUBERNETES_SERVICE_HOST: text("set by the kubelet"),
  KUBERNETES_SERVICE_PORT: text("set by the kubelet"),
  CREDSPEC_CACHE_TTL_MS: integer(DEFAULT_CREDSPEC_CACHE_TTL_MS, 0),
  ACCESS_CACHE_TTL_MS: integer(DEFAULT_ACCESS_CACHE_TTL_MS, 0),
  // The JWT token source (Workers, or any runtime without an exec plugin).
  JWT_PRIVATE_KEY: text("none", true),
  JWT_ALG: text("the JWK's `alg`, else `RS256`"),
  JWT_KEY_ID: text("RFC 7638 thumbprint"),
  JWT_ISSUER: text("none (required with JWT)"),
  JWT_SUBJECT: text("none (required with JWT)"),
  JWT_AUDIENCE: text("none (required with JWT)"),
  // The clouds' token sources (docs/configuration.md, Cloud tokens without helper binaries); the platform sets AWS_*, IDENTITY_*.
  CLOUD_TOKEN: text("none"),
  EKS_CLUSTER_NAME: text("none (required with eks)"),
  EKS_REGION: text("`AWS_REGION`, else `AWS_DEFAULT_REGION`"),
  AWS_REGION: text("set by Lambda"),
  AWS_DEFAULT_REGION: text("set by Lambda"),
  AWS_ACCESS_KEY_ID: platformSecret("set by Lambda"),
  AWS_SECRET_ACCESS_KEY: platformSecret("set by Lambda"),
  AWS_SESSION_TOKEN: platformSecret("set by Lambda"),
  IDENTITY_ENDPOINT: text("set by App Service and Azure Functions"),
  IDENTITY_HEADER: platformSecret("set by App Service and Azure Functions"),
  AKS_CLIENT_ID: text("`AZURE_CLIENT_ID`, else the system-assigned identity"),
  AZURE_CLIENT_ID: text("the system-assigned identity"),
  // "Azure Kubernetes Service AAD Server": the audience every AKS cluster with Entra ID accepts.
  AKS_SERVER_ID: textDefault("6dae42f8-4368-4678-94ff-3960e28e3630"),
  // Where Google's runtimes serve their metadata; Google's client libraries read GCE_METADATA_HOST too.
  GCE_METADATA_HOST: textDefault("metadata.google.internal"),
  GKE_SERVICE_ACCOUNT: textDefault("default"),
} as const satisfies Record<string, Variable>;

export type VariableName = keyof typeof VARIABLES;

/** `env` without what an exec plugin never inherits (unless the kubeconfig's `exec.env` sets it): secrets but the platform's, and caller auth. */
export function withoutPluginSecrets(env: Record<string, string | undefined>): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !WITHHELD_FROM_PLUGINS.has(name)));
}

const WITHHELD_FROM_PLUGINS: ReadonlySet<string> = new Set(
  Object.entries(VARIABLES as Record<string, Variable>)
    .filter(
      ([name, variable]) =>
        name.startsWith("CALLER_AUTH") ||
        (variable.kind === "text" && variable.secret === true && variable.platform !== true),
    )
    .map(([name]) => name),
);
