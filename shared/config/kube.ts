/** The Kubernetes client's variables: kubeconfig, cache lifetimes, JWT_* and CLOUD_TOKEN; secrets are never echoed. */
import type { JwtSettings } from "../credentials/jwt.ts";
import { parseJson } from "../json.ts";
import { readCloudToken } from "./cloud-token.ts";
import { Reader, type Bindings } from "./reader.ts";

/** What {@link readKubeSettings} reads. */
export type KubeSettings = ReturnType<typeof readKubeSettings>;

function readJwt(read: Reader): JwtSettings | undefined {
  const { problems } = read;
  const names = ["JWT_PRIVATE_KEY", "JWT_ISSUER", "JWT_SUBJECT", "JWT_AUDIENCE"] as const;
  const given = ([...names, "JWT_ALG", "JWT_KEY_ID"] as const).filter((name) => read.optional(name) !== undefined);
  if (given.length === 0) return undefined;
  const missing = names.filter((name) => read.optional(name) === undefined);
  if (missing.length > 0) problems.push(`${missing.join(", ")} must be set too when ${given.join(", ")} is set`);
  const privateKey = read.optional("JWT_PRIVATE_KEY") ?? "";
  const jwk = parseJson(privateKey) as { d?: unknown } | null | undefined;
  if (privateKey.includes("-----BEGIN RSA PRIVATE KEY-----") || privateKey.includes("-----BEGIN EC PRIVATE KEY-----")) {
    problems.push(
      "JWT_PRIVATE_KEY must be PKCS8 (-----BEGIN PRIVATE KEY-----); convert with openssl pkcs8 -topk8 -nocrypt",
    );
  } else if (privateKey !== "" && !privateKey.includes("-----BEGIN PRIVATE KEY-----") && typeof jwk?.d !== "string") {
    problems.push('JWT_PRIVATE_KEY must be a PKCS8 PEM or a private JWK (JSON with "d")');
  }
  const issuer = read.optional("JWT_ISSUER") ?? "";
  if (issuer !== "" && !/^https:\/\/[^\s]+$/.test(issuer))
    problems.push("JWT_ISSUER must be an https URL, as Kubernetes JWT authenticators require");
  return {
    privateKey,
    issuer,
    subject: read.optional("JWT_SUBJECT") ?? "",
    audience: read.items("JWT_AUDIENCE"),
    alg: read.optional("JWT_ALG"),
    keyId: read.optional("JWT_KEY_ID"),
  };
}

/** Reads the Kubernetes client's variables; problems go to the reader, unusable values fall back to defaults. */
export function readKubeSettings(read: Reader) {
  const host = read.optional("KUBERNETES_SERVICE_HOST");
  const port = read.optional("KUBERNETES_SERVICE_PORT");
  return Object.freeze({
    /** How long credspec contents are reused; 0: not at all. */
    credSpecCacheTtlMs: read.integer("CREDSPEC_CACHE_TTL_MS"),
    /** How long an allowed access review is reused; 0: not at all. */
    accessCacheTtlMs: read.integer("ACCESS_CACHE_TTL_MS"),
    /** Node: a path list (`:` or `;` separated as the platform does); Workers: the kubeconfig YAML, a secret, whitespace kept. */
    kubeconfig: read.optional("KUBECONFIG") === undefined ? undefined : read.env["KUBECONFIG"],
    kubeContext: read.optional("KUBE_CONTEXT"),
    /** Set when KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are (inside a pod). */
    inCluster: host !== undefined && port !== undefined ? { host, port } : undefined,
    jwt: readJwt(read),
    cloudToken: readCloudToken(read),
  });
}

/** The Kubernetes client's section alone (tests of the clients build their settings with it). */
export function parseKubeSettings(env: Bindings): { settings: KubeSettings; problems: string[] } {
  const problems: string[] = [];
  return { settings: readKubeSettings(new Reader(env, problems)), problems };
}
