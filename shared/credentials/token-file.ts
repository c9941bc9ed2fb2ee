/** A bearer token file re-read before it goes stale (the kubelet rotates projected tokens), the read injected (Node: fs). */
import { decodeJwt } from "jose";
import { AdmissionError } from "../errors.ts";
import { createCredentialCache, type CacheSharingOptions } from "./cache.ts";
import type { Credential, TokenSource } from "./token-source.ts";

/** Re-read at least this often, as client-go does for in-cluster tokens; a JWT's `exp` shortens it. */
const RE_READ_MS = 60_000;

/** The token's `exp` in epoch ms, when the token is a JWT that has one. */
function jwtExpiry(token: string): number | undefined {
  try {
    const { exp } = decodeJwt(token);
    return typeof exp === "number" ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/** A {@link TokenSource} over the file at `path`, read whole by `readText`; a 401 forces a re-read. */
export function createTokenFileSource(
  options: CacheSharingOptions & { path: string; readText: (path: string) => Promise<string> },
): TokenSource {
  const { path, readText } = options;
  const describe = `token file "${path}"`;

  async function load(_: unknown, requestedAt: number): Promise<Credential> {
    const text = await readText(path).catch((error: unknown) => {
      throw new AdmissionError(`${describe} could not be read`, { code: "ERR_CREDENTIALS", cause: error });
    });
    const token = text.trim();
    if (token === "") throw new AdmissionError(`${describe} is empty`, { code: "ERR_CREDENTIALS" });
    const expiresAt = Math.min(requestedAt + RE_READ_MS, jwtExpiry(token) ?? Number.POSITIVE_INFINITY);
    return { token, expirationTimestamp: new Date(expiresAt).toISOString() };
  }

  return createCredentialCache({ ...options, load, describe });
}
