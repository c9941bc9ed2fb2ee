/**
 * One GET to a local token endpoint (Azure's managed identity endpoint, Google's metadata server) with a
 * timeout, answered by a JSON object. Failures say which step went wrong and never repeat the request's secret
 * header or the answer's body, either of which may hold a credential.
 */
import { CredentialsError, DeadlineExceededError } from "../errors.ts";
import type { RefreshObserver } from "../observer.ts";
import { createCredentialCache } from "./cache.ts";
import { TOKEN_ENDPOINT_TIMEOUT_MS } from "./cloud-constants.ts";
import type { Credential, TokenSource } from "./token-source.ts";

/** What {@link fetchTokenJson} needs. */
interface TokenEndpointRequest {
  url: URL;
  /** Sent as is; their values never appear in errors. */
  headers: Record<string, string>;
  /** Names the source in errors, e.g. `Azure managed identity endpoint`. Never a secret. */
  describe: string;
  fetch: typeof fetch;
  timeoutMs: number;
  /** The caller's deadline, on top of `timeoutMs`. */
  signal?: AbortSignal | undefined;
  /** A header a genuine answer carries (Google's `Metadata-Flavor: Google`); a 2xx without it is refused. */
  responseHeader?: { name: string; value: string };
}

/** What every token endpoint source (Azure managed identity, Google metadata server) takes besides its own settings. */
export interface TokenEndpointSourceOptions {
  /** Give up on the endpoint after this long, 1 to 60000. Default {@link TOKEN_ENDPOINT_TIMEOUT_MS}. */
  timeoutMs?: number;
  /** Default: the global fetch. */
  fetch?: typeof fetch | undefined;
  /** As `shareInFlight` of the credential cache (cache.ts): true on Node, false on Workers. */
  shareInFlight: boolean;
  now?: (() => number) | undefined;
  /** See {@link CredentialCacheOptions.onRefresh}. */
  onRefresh?: RefreshObserver | undefined;
}

/**
 * A {@link TokenSource} that GETs `endpoint` and reads the credential out of the JSON answer with `read` (given the
 * time the request was sent), cached by the credential cache until its expiry less the refresh skew.
 * @throws TypeError unless `timeoutMs` is a whole number from 1 to 60000 (a minute).
 */
export function createTokenEndpointSource(
  options: TokenEndpointSourceOptions,
  endpoint: Pick<TokenEndpointRequest, "url" | "headers" | "describe" | "responseHeader">,
  read: (body: Record<string, unknown>, requestedAt: number) => Credential,
): TokenSource {
  const timeoutMs = options.timeoutMs ?? TOKEN_ENDPOINT_TIMEOUT_MS;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 60_000) {
    throw new TypeError("timeoutMs must be a whole number of milliseconds from 1 to 60000");
  }
  const now = options.now ?? Date.now;
  const fetchFunction = options.fetch ?? ((input, init) => fetch(input, init));
  async function load(signal: AbortSignal | undefined): Promise<Credential> {
    const requestedAt = now();
    return read(await fetchTokenJson({ ...endpoint, fetch: fetchFunction, timeoutMs, signal }), requestedAt);
  }
  const { describe } = endpoint;
  return createCredentialCache({ load, describe, shareInFlight: options.shareInFlight, now, onRefresh: options.onRefresh });
}

// OAuth-style error codes ("invalid_request") and short service codes are safe to repeat; nothing longer.
const SAFE_ERROR_CODE = /^[\w.-]{1,64}$/;

/** The `error` code of an error answer, when it has a short, harmless one. */
function errorCode(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: unknown };
    const code = typeof body.error === "object" && body.error !== null ? (body.error as { code?: unknown }).code : body.error;
    return typeof code === "string" && SAFE_ERROR_CODE.test(code) ? ` (error "${code}")` : "";
  } catch {
    return "";
  }
}

/**
 * GETs `request.url` and parses the answer as a JSON object.
 * @throws DeadlineExceededError when the caller's signal aborts, CredentialsError for a timeout, a transport
 * error, a non-2xx answer or an answer that is not a JSON object.
 */
async function fetchTokenJson(request: TokenEndpointRequest): Promise<Record<string, unknown>> {
  const { describe, signal } = request;
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), request.timeoutMs);
  const combined = signal === undefined ? timeout.signal : AbortSignal.any([signal, timeout.signal]);
  try {
    let response: Response;
    let text: string;
    try {
      // Never follow a redirect: it would carry the secret header elsewhere. A 3xx is a refusal like any non-2xx.
      response = await request.fetch(request.url, { method: "GET", headers: request.headers, signal: combined, redirect: "manual" });
      text = await response.text();
    } catch (error) {
      if (signal?.aborted === true) throw new DeadlineExceededError(`${describe}: no token before the deadline`);
      if (timeout.signal.aborted) throw new CredentialsError(`${describe} did not answer within ${request.timeoutMs} ms`);
      throw new CredentialsError(`${describe} could not be reached (${transportDetail(error)})`);
    }
    if (!response.ok) {
      const statusText = response.statusText === "" ? "" : ` ${response.statusText}`;
      throw new CredentialsError(`${describe} refused: HTTP ${response.status}${statusText}${errorCode(text)}`);
    }
    const expected = request.responseHeader;
    if (expected !== undefined && response.headers.get(expected.name) !== expected.value) {
      throw new CredentialsError(`${describe} answered without the ${expected.name}: ${expected.value} header (not the real endpoint?)`);
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new CredentialsError(`${describe} answered HTTP ${response.status} with a body that is not JSON`);
    }
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      throw new CredentialsError(`${describe} answered HTTP ${response.status} with JSON that is not an object`);
    }
    return body as Record<string, unknown>;
  } finally {
    clearTimeout(timer);
  }
}

/** The short code of a fetch failure (undici puts it on `cause`), never a message that could carry a header. */
function transportDetail(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  if (typeof cause?.code === "string") return cause.code;
  return error instanceof Error ? error.name : "unknown error";
}

/** The named string field of a token answer. @throws CredentialsError naming the field (never its value). */
export function requireString(body: Record<string, unknown>, field: string, describe: string): string {
  const value = body[field];
  if (typeof value !== "string" || value === "") throw new CredentialsError(`${describe} answered without ${field}`);
  return value;
}
