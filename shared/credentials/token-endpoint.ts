/**
 * One GET with a timeout to a local token endpoint (Azure's managed identity endpoint, Google's metadata server). Failures
 * say which step went wrong, never repeating the secret header or the answer's body (either may hold a credential).
 */
import { CredentialsError, DeadlineExceededError, shortErrorCode } from "../errors.ts";
import { parseJson } from "../json.ts";
import { createCredentialCache, type CacheSharingOptions } from "./cache.ts";
import type { Credential, TokenSource } from "./token-source.ts";

/** Both endpoints are local and answer in milliseconds; a review is bounded by its deadline, a shared refresh by this. */
const TOKEN_ENDPOINT_TIMEOUT_MS = 5_000;

/** The endpoint a source GETs. */
interface TokenEndpoint {
  url: URL;
  /** Sent as is; their values never appear in errors. */
  headers: Record<string, string>;
  /** Names the source in errors, e.g. `Azure managed identity endpoint`. Never a secret. */
  describe: string;
  /** A header a genuine answer carries (Google's `Metadata-Flavor: Google`); a 2xx without it is refused. */
  responseHeader?: { name: string; value: string };
}

/** What every token endpoint source (Azure managed identity, Google metadata server) takes besides its own settings. */
export interface TokenEndpointSourceOptions extends CacheSharingOptions {
  /** Give up on the endpoint after this long, 1 to 60000. Default 5000. */
  timeoutMs?: number;
  /** Default: the global fetch. */
  fetch?: typeof fetch | undefined;
}

/**
 * A {@link TokenSource} that GETs `endpoint` and reads the credential out of the JSON answer with `read` (given the
 * time the request was sent), cached by the credential cache until its expiry less the refresh skew.
 * @throws TypeError unless `timeoutMs` is a whole number from 1 to 60000 (a minute).
 */
export function createTokenEndpointSource(
  options: TokenEndpointSourceOptions,
  endpoint: TokenEndpoint,
  read: (body: Record<string, unknown>, requestedAt: number) => Credential,
): TokenSource {
  const timeoutMs = options.timeoutMs ?? TOKEN_ENDPOINT_TIMEOUT_MS;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 60_000) {
    throw new TypeError("timeoutMs must be a whole number of milliseconds from 1 to 60000");
  }
  const now = options.now ?? Date.now;
  const fetchFunction = options.fetch ?? ((input, init) => fetch(input, init));
  const { describe } = endpoint;
  // `signal` is the caller's deadline, on top of `timeoutMs`: it ends in a DeadlineExceededError, everything else
  // (a timeout, a transport error, a non-2xx answer, an answer that is not a JSON object) in a CredentialsError.
  async function load(signal: AbortSignal | undefined): Promise<Credential> {
    const requestedAt = now();
    const timeout = AbortSignal.timeout(timeoutMs);
    let response: Response;
    let text: string;
    try {
      // Never follow a redirect: it would carry the secret header elsewhere. A 3xx is a refusal like any non-2xx.
      const combined = signal === undefined ? timeout : AbortSignal.any([signal, timeout]);
      response = await fetchFunction(endpoint.url, { method: "GET", headers: endpoint.headers, signal: combined, redirect: "manual" });
      text = await response.text();
    } catch (error) {
      if (signal?.aborted === true) throw new DeadlineExceededError(`${describe}: no token before the deadline`);
      if (timeout.aborted) throw new CredentialsError(`${describe} did not answer within ${timeoutMs} ms`);
      throw new CredentialsError(`${describe} could not be reached (${shortErrorCode(error)})`);
    }
    if (!response.ok) {
      const statusText = response.statusText === "" ? "" : ` ${response.statusText}`;
      throw new CredentialsError(`${describe} refused: HTTP ${response.status}${statusText}${errorCode(text)}`);
    }
    const expected = endpoint.responseHeader;
    if (expected !== undefined && response.headers.get(expected.name) !== expected.value) {
      throw new CredentialsError(`${describe} answered without the ${expected.name}: ${expected.value} header (not the real endpoint?)`);
    }
    const body = parseJson(text);
    if (body === undefined) throw new CredentialsError(`${describe} answered HTTP ${response.status} with a body that is not JSON`);
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      throw new CredentialsError(`${describe} answered HTTP ${response.status} with JSON that is not an object`);
    }
    return read(body as Record<string, unknown>, requestedAt);
  }
  return createCredentialCache({ ...options, load, describe });
}

// OAuth-style error codes ("invalid_request") and short service codes are safe to repeat; nothing longer.
const SAFE_ERROR_CODE = /^[\w.-]{1,64}$/;

/** The `error` code of an error answer, when it has a short, harmless one. */
function errorCode(text: string): string {
  const error = (parseJson(text) as { error?: unknown } | null | undefined)?.error;
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : error;
  return typeof code === "string" && SAFE_ERROR_CODE.test(code) ? ` (error "${code}")` : "";
}

/** The named string field of a token answer. @throws CredentialsError naming the field (never its value). */
export function requireString(body: Record<string, unknown>, field: string, describe: string): string {
  const value = body[field];
  if (typeof value !== "string" || value === "") throw new CredentialsError(`${describe} answered without ${field}`);
  return value;
}
