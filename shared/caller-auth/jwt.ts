/** CALLER_AUTH=jwt: the API server sends a JWT of CALLER_AUTH_JWT_ISSUER, verified by jose (jwt-verifier.ts). */
import { RUNTIMES } from "../config/runtime.ts";
import {
  ASYMMETRIC_JWT_ALGORITHMS,
  DEFAULT_SECRET_JWT_ALGORITHM,
  SYMMETRIC_JWT_ALGORITHMS,
  VARIABLES,
  type VariableName,
} from "../config/variables.ts";
import type { Reader } from "../config/reader.ts";
import { parseJson } from "../json.ts";
// Types only: the verifier itself (and jose) is loaded only where CALLER_AUTH=jwt.
import type { CallerCheck, JwtCallerAuthOptions, JwtKeySource } from "./jwt-verifier.ts";
import type { CallerAuthMode } from "./mode.ts";
import { bearerTokens, refuseCaller } from "./refusal.ts";

export type { JwtCallerAuthOptions } from "./jwt-verifier.ts";

const MIN_JWT_SECRET_LENGTH = 32;

export const jwt = {
  name: "jwt",
  variables: (Object.keys(VARIABLES) as VariableName[]).filter((name) => name.startsWith("CALLER_AUTH_JWT_")),
  runtimes: RUNTIMES,
  summary: "the API server sends a short-lived token minted on the control plane (infra/deploy/caller-auth/jwt)",
  read: readJwt,
  middleware(options, { logger, now }) {
    // jose is loaded at setup and only where this mode is configured (a chunk of its own in the Node bundles).
    const verifier = import("./jwt-verifier.ts")
      .then(({ createJwtVerifier }) => createJwtVerifier(options, now))
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
  },
} as const satisfies CallerAuthMode<JwtCallerAuthOptions>;

function readJwt(read: Reader): JwtCallerAuthOptions {
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
