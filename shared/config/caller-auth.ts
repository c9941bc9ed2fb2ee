/** The caller-auth section of the configuration: CALLER_AUTH and the CALLER_AUTH_* variables of its mode. */
import {
  ASYMMETRIC_JWT_ALGORITHMS,
  CALLER_AUTH_MODES,
  SYMMETRIC_JWT_ALGORITHMS,
  type CallerAuthMode,
  type CallerAuthOptions,
} from "../http/caller-auth.ts";
import type { JwtKeySource } from "../http/caller-auth-jwt.ts";
import type { Reader } from "./reader.ts";
import { parseJson } from "../json.ts";
import { DEFAULT_SECRET_JWT_ALGORITHM, VARIABLES, type VariableName } from "./variables.ts";

/** How long and of which characters each comma-separated secret must be. */
const SECRET_RULES = {
  // Bearer tokens: RFC 6750 `b64token`, so they can be sent as configured.
  token: {
    min: 16,
    chars: /^[A-Za-z0-9\-._~+/]+=*$/,
    rule: "at least 16 characters of A-Z a-z 0-9 - . _ ~ + / (then =)",
  },
  // Path secrets: URL-unreserved characters only (RFC 3986 section 2.3), so no encoding can disguise them.
  secret: { min: 32, chars: /^[A-Za-z0-9\-._~]+$/, rule: "at least 32 characters of A-Z a-z 0-9 - . _ ~" },
};
const MIN_JWT_SECRET_LENGTH = 32;

/** The variables each mode reads; setting one that the chosen mode ignores is reported (a protection not in force). */
const MODE_VARIABLES: Record<Exclude<CallerAuthMode, "none">, VariableName[]> = {
  bearer: ["CALLER_AUTH_TOKENS"],
  jwt: (Object.keys(VARIABLES) as VariableName[]).filter((name) => name.startsWith("CALLER_AUTH_JWT_")),
  path: ["CALLER_AUTH_PATH_SECRET"],
  mtls: ["CALLER_AUTH_CLIENT_CA_FILE", "CALLER_AUTH_CLIENT_NAMES"],
};

/** Reads CALLER_AUTH and its mode's variables; problems (never a secret's value) go to the reader; index.ts judges the runtime. */
export function readCallerAuth(read: Reader): CallerAuthOptions {
  const mode = read.optional("CALLER_AUTH");
  const modes = CALLER_AUTH_MODES.join(", ");
  if (mode === undefined) {
    read.problems.push(
      `CALLER_AUTH is not set: choose how callers authenticate (${modes}); "none" is for local runs only`,
    );
    return { mode: "none" };
  }
  if (!(CALLER_AUTH_MODES as readonly string[]).includes(mode)) {
    read.problem("CALLER_AUTH", `must be one of ${modes}`, mode);
    return { mode: "none" };
  }
  for (const [other, names] of Object.entries(MODE_VARIABLES)) {
    if (other === mode) continue;
    for (const name of names)
      if (read.optional(name) !== undefined)
        read.problems.push(`${name} is set but CALLER_AUTH is "${mode}": unset it`);
  }
  return MODE_READERS[mode as CallerAuthMode](read);
}

const MODE_READERS: Record<CallerAuthMode, (read: Reader) => CallerAuthOptions> = {
  none: () => ({ mode: "none" }),
  bearer: (read) => {
    const tokens = readSecrets(read, "CALLER_AUTH_TOKENS");
    if (tokens.length === 0)
      read.problems.push("CALLER_AUTH=bearer needs CALLER_AUTH_TOKENS (comma-separated accepted tokens)");
    return { mode: "bearer", tokens };
  },
  jwt: readJwt,
  path: (read) => {
    const secrets = readSecrets(read, "CALLER_AUTH_PATH_SECRET");
    if (secrets.length === 0) {
      read.problems.push(
        `CALLER_AUTH=path needs CALLER_AUTH_PATH_SECRET: ${SECRET_RULES.secret.rule} (two, comma-separated, while rotating)`,
      );
    }
    return { mode: "path", secrets };
  },
  mtls: (read) => {
    const clientCaFile = read.optional("CALLER_AUTH_CLIENT_CA_FILE") ?? "";
    if (clientCaFile === "")
      read.problems.push(
        "CALLER_AUTH=mtls needs CALLER_AUTH_CLIENT_CA_FILE (PEM file of the CA that signs callers' certificates)",
      );
    return { mode: "mtls", clientCaFile, clientNames: read.items("CALLER_AUTH_CLIENT_NAMES") };
  },
};

/** Comma-separated secrets (old,new while rotating), each checked: bearer tokens (METRICS_TOKENS: a scraper's, never the admission one), path secrets. */
export function readSecrets(
  read: Reader,
  name: "CALLER_AUTH_TOKENS" | "METRICS_TOKENS" | "CALLER_AUTH_PATH_SECRET",
): string[] {
  const kind = name === "CALLER_AUTH_PATH_SECRET" ? "secret" : "token";
  const { min, chars, rule } = SECRET_RULES[kind];
  const values = read.items(name);
  values.forEach((value, i) => {
    if (value.length < min || !chars.test(value))
      read.problems.push(`${name}: ${kind} ${i + 1} must be ${rule} (it has ${value.length} characters)`);
  });
  return values;
}

function readJwt(read: Reader): CallerAuthOptions {
  const issuer = read.optional("CALLER_AUTH_JWT_ISSUER") ?? "";
  const audience = read.items("CALLER_AUTH_JWT_AUDIENCE");
  if (issuer === "") read.problems.push("CALLER_AUTH=jwt needs CALLER_AUTH_JWT_ISSUER (the required iss claim)");
  if (audience.length === 0)
    read.problems.push("CALLER_AUTH=jwt needs CALLER_AUTH_JWT_AUDIENCE (comma-separated; aud must hold one)");
  const keys = readJwtKeys(read);
  const secret = keys?.kind === "secret";
  const allowed: readonly string[] = secret ? SYMMETRIC_JWT_ALGORITHMS : ASYMMETRIC_JWT_ALGORITHMS;
  const listed = read.optional("CALLER_AUTH_JWT_ALGORITHMS");
  const algorithms =
    listed === undefined
      ? secret
        ? [DEFAULT_SECRET_JWT_ALGORITHM]
        : [...ASYMMETRIC_JWT_ALGORITHMS]
      : read.items("CALLER_AUTH_JWT_ALGORITHMS");
  if (algorithms.length === 0 || algorithms.some((alg) => !allowed.includes(alg))) {
    const hint = secret
      ? "with CALLER_AUTH_JWT_SECRET"
      : "with a key set (HS* needs CALLER_AUTH_JWT_SECRET; none is never accepted)";
    read.problem("CALLER_AUTH_JWT_ALGORITHMS", `must list some of ${allowed.join(", ")} ${hint}`, listed ?? "");
  }
  return {
    mode: "jwt",
    issuer,
    audience,
    subjects: read.items("CALLER_AUTH_JWT_SUBJECTS"),
    algorithms,
    keys: keys ?? { kind: "jwks", jwks: { keys: [] } },
  };
}

function readJwtKeys(read: Reader): JwtKeySource | undefined {
  const url = read.optional("CALLER_AUTH_JWT_JWKS_URL");
  const inline = read.optional("CALLER_AUTH_JWT_JWKS");
  const secret = read.optional("CALLER_AUTH_JWT_SECRET");
  if ([url, inline, secret].filter((v) => v !== undefined).length !== 1) {
    read.problems.push(
      "CALLER_AUTH=jwt needs exactly one of CALLER_AUTH_JWT_JWKS_URL, CALLER_AUTH_JWT_JWKS or CALLER_AUTH_JWT_SECRET",
    );
    return undefined;
  }
  if (url !== undefined) {
    // https, or http to a loopback host (tests, a sidecar): a JWKS fetched in clear could be swapped on the way.
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      read.problems.push("CALLER_AUTH_JWT_JWKS_URL is not a URL");
    }
    const loopback = ["localhost", "127.0.0.1", "[::1]"].includes(parsed?.hostname ?? "");
    if (parsed !== undefined && parsed.protocol !== "https:" && !(parsed.protocol === "http:" && loopback)) {
      read.problems.push("CALLER_AUTH_JWT_JWKS_URL must be an https URL (http only for localhost)");
    }
    return { kind: "jwks-url", url };
  }
  if (inline !== undefined) {
    const parsed = parseJwks(inline);
    if (typeof parsed === "string") read.problems.push(`CALLER_AUTH_JWT_JWKS ${parsed}`);
    return { kind: "jwks", jwks: typeof parsed === "string" ? { keys: [] } : parsed };
  }
  if ((secret ?? "").length < MIN_JWT_SECRET_LENGTH) {
    read.problem("CALLER_AUTH_JWT_SECRET", `must be at least ${MIN_JWT_SECRET_LENGTH} characters`, secret ?? "");
  }
  return { kind: "secret", secret: secret ?? "" };
}

/** A JWKS of public keys: `{"keys":[{"kty":...}, ...]}`; private (`d`) and symmetric (`oct`) keys are refused. */
function parseJwks(text: string): { keys: { kty: string; [member: string]: unknown }[] } | string {
  const value = parseJson(text);
  if (value === undefined) return "is not JSON";
  const keys = typeof value === "object" && value !== null ? (value as { keys?: unknown }).keys : undefined;
  if (!Array.isArray(keys) || keys.length === 0)
    return 'must be a JSON Web Key Set: {"keys":[...]} with at least one key';
  for (const [i, key] of keys.entries()) {
    if (typeof key !== "object" || key === null || typeof (key as { kty?: unknown }).kty !== "string")
      return `key ${i + 1} has no kty`;
    if ("d" in key) return `key ${i + 1} is a private key: give the public key only`;
    if ((key as { kty: string }).kty === "oct")
      return `key ${i + 1} is a symmetric key: use CALLER_AUTH_JWT_SECRET for HS*`;
  }
  return { keys: keys as { kty: string }[] };
}
