/**
 * One API call with everything around it: the credential, the deadline, one retry after a 401 with a fresh
 * credential, and one retry of a GET after a transport error, 429 or 5xx while the deadline allows
 * (docs/configuration.md, Talking to the Kubernetes API). Callers map failures with {@link errorFromAnswer}, from
 * the HTTP status and the Status `reason`, never from message text. A redirect is refused, never followed: the next
 * hop is not the API server we trust (and would receive our credential).
 */
import * as z from "zod/mini";
import "../zod-english.ts";
import { awaitWithin, sleep } from "../deadline.ts";
import { isTokenCredential, type Credential, type TokenSource } from "../credentials/token-source.ts";
import { AdmissionError, CredentialsError, DeadlineExceededError, KubeApiError, shortErrorCode } from "../errors.ts";
import type { KubeCallCode, KubeObserver, KubeResource } from "../observer.ts";
import { parseJson } from "../json.ts";
import type { CallOptions } from "./client.ts";

/**
 * Upper bound of one API call, retries included, on top of the review's own deadline (which usually ends first):
 * half the default webhook timeout, for what has none (a call shared by several reviews).
 */
export const KUBE_REQUEST_TIMEOUT_MS = 5_000;

/** A PEM client certificate and its PEM key, for the TLS handshake. */
export interface ClientCertificate {
  certificate: string;
  key: string;
}

/** What the client sends: a fetch RequestInit narrowed to what its calls use. A 3xx is never followed. */
export interface KubeRequestInit {
  method: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  redirect?: "manual";
}

/** What the client reads of an answer: a fetch Response, or the node:https transport's answer without building one. */
export interface KubeResponse {
  status: number;
  headers: { get(name: string): string | null };
  text(): Promise<string>;
}

/**
 * The one I/O seam of the client: fetch, plus the client certificate the request must present (exec plugins may
 * issue one per refresh): node:https on Node-based targets (`functions/node/kube/https-fetch.ts`), fetch on Workers.
 */
export type KubeFetch = (url: string, init: KubeRequestInit, clientCertificate?: ClientCertificate) => Promise<KubeResponse>;

/** Options of {@link createKubeRequester}. */
export interface KubeRequesterOptions {
  /** The kubeconfig `server`; a trailing slash is dropped. */
  server: string;
  fetch: KubeFetch;
  /** Absent: the client certificate of the transport is the credential. */
  tokenSource?: TokenSource | undefined;
  /** Default {@link KUBE_REQUEST_TIMEOUT_MS}; tests shorten it. */
  requestTimeoutMs?: number;
  /** Pause before retrying a GET when the server gave no Retry-After. Default 200. */
  retryDelayMs?: number;
  /** kubeconfig `disable-compression`: ask for identity encoding. */
  disableCompression?: boolean;
  /** Clock in epoch ms, for Retry-After. Default `Date.now`. */
  now?: (() => number) | undefined;
  /** Told of every attempt (metrics). */
  observer?: KubeObserver | undefined;
}

/** One call within the review's deadline. `what` names it in errors: `reading GMSACredentialSpec "x"`. */
export interface KubeRequest extends CallOptions {
  method: "GET" | "POST";
  /** Absolute path, already encoded. */
  path: string;
  /** The resource the path names, for metrics (the path itself holds names from the review). */
  resource: KubeResource;
  body?: unknown;
  what: string;
}

/** The final answer: any HTTP status; `body` is the parsed JSON, if any; `headers` for the CLI (dry runs' Warning). */
export type KubeAnswer = { status: number; body: unknown; headers?: KubeResponse["headers"] };

export type KubeRequester = (request: KubeRequest) => Promise<KubeAnswer>;

/** Builds the requester all kube calls go through. */
export function createKubeRequester(options: KubeRequesterOptions): KubeRequester {
  const base = options.server.replace(/\/+$/, "");
  const { tokenSource, observer } = options;
  const timeoutMs = options.requestTimeoutMs ?? KUBE_REQUEST_TIMEOUT_MS;
  const retryDelayMs = options.retryDelayMs ?? 200;
  const now = options.now ?? Date.now;

  return async ({ method, path, resource, body, what, signal, tally }) => {
    const deadline = AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
    const attempted = (code: KubeCallCode, startedAt: number): void => {
      if (tally !== undefined) tally.kubeRequests++;
      observer?.kubeRequest(method === "GET" ? "get" : "create", resource, code, (performance.now() - startedAt) / 1000);
    };
    const deadlineAt = now() + timeoutMs;
    const deadlineError = (): DeadlineExceededError =>
      new DeadlineExceededError(`${what}: no answer from the API server within the deadline`);
    let refreshed = false;
    let retried = false;
    for (;;) {
      if (deadline.aborted) throw deadlineError();
      let credential: Credential | undefined;
      try {
        credential = await tokenSource?.getCredential({ signal: deadline, tally });
      } catch (error) {
        throw error instanceof AdmissionError ? error.withContext(what) : new CredentialsError(`${what}: no credential`, { cause: error });
      }
      const headers: Record<string, string> = { Accept: "application/json", "User-Agent": "gmsa-webhooks" };
      if (body !== undefined) headers["Content-Type"] = "application/json";
      if (options.disableCompression === true) headers["Accept-Encoding"] = "identity";
      if (credential !== undefined && isTokenCredential(credential)) headers["Authorization"] = `Bearer ${credential.token}`;
      const clientCertificate =
        credential === undefined || isTokenCredential(credential)
          ? undefined
          : { certificate: credential.clientCertificateData, key: credential.clientKeyData };
      let response: KubeResponse;
      let text: string;
      const startedAt = performance.now();
      try {
        const init: KubeRequestInit = { method, headers, signal: deadline, redirect: "manual" };
        if (body !== undefined) init.body = JSON.stringify(body);
        response = await awaitWithin(options.fetch(`${base}${path}`, init, clientCertificate), deadline, deadlineError);
        text = await response.text();
      } catch (error) {
        attempted(deadline.aborted ? "timeout" : "error", startedAt);
        if (deadline.aborted) throw deadlineError();
        if (method === "GET" && !retried && (await sleep(retryDelayMs, deadline))) {
          retried = true;
          continue;
        }
        if (deadline.aborted) throw deadlineError();
        throw new KubeApiError(`${what}: API server unreachable (${shortErrorCode(error)})`, { cause: error });
      }
      const answer: KubeAnswer = { status: response.status, body: text === "" ? undefined : parseJson(text), headers: response.headers };
      attempted(answer.status, startedAt);
      if (answer.status >= 300 && answer.status < 400) {
        // Where it pointed goes to the log only (the cause); the pod's author learns the status.
        throw new KubeApiError(`${what}: API server answered ${answer.status}, a redirect, which is never followed`, {
          cause: { httpStatus: answer.status, location: response.headers.get("Location") },
        });
      }
      if (credential !== undefined && answer.status >= 200 && answer.status < 300) tokenSource?.accepted?.(credential);
      if (answer.status === 401 && credential !== undefined && tokenSource !== undefined) {
        // Even after the one retry: the credential is known bad, and repeated refusals make the source back off.
        tokenSource.invalidate(credential);
        if (!refreshed) {
          refreshed = true;
          continue;
        }
      }
      // 429 and 5xx are worth one more try (docs/security.md, Fail closed).
      if (method === "GET" && !retried && (answer.status === 429 || answer.status >= 500)) {
        const delay = retryAfterMs(response.headers.get("Retry-After"), answer.body, now()) ?? retryDelayMs;
        if (now() + delay < deadlineAt && (await sleep(delay, deadline))) {
          retried = true;
          continue;
        }
      }
      if (answer.status >= 200 && answer.status < 300 && answer.body === undefined) {
        throw new KubeApiError(`${what}: API server answered ${answer.status} without a JSON body`);
      }
      return answer;
    }
  };
}

/** The parts of a metav1.Status we read. */
const kubeStatus = z.object({
  kind: z.literal("Status"),
  reason: z.optional(z.string()),
  message: z.optional(z.string()),
  details: z.optional(z.object({ name: z.optional(z.string()), retryAfterSeconds: z.optional(z.number()) })),
});

/** The body as a metav1.Status, if it is one. */
export function readStatus(body: unknown): z.infer<typeof kubeStatus> | undefined {
  const parsed = kubeStatus.safeParse(body);
  return parsed.success ? parsed.data : undefined;
}

/**
 * The error for a final non-success answer to `what` ("reading GMSACredentialSpec \"x\""). The Status message
 * goes into `cause` for logs, not into the message that reaches the pod's author.
 */
export function errorFromAnswer(what: string, httpStatus: number, body: unknown): AdmissionError {
  const status = readStatus(body);
  const answer = status?.reason ? `${httpStatus} ${status.reason}` : `${httpStatus}`;
  const cause = { httpStatus, reason: status?.reason, message: status?.message };
  if (httpStatus === 401) return new CredentialsError(`${what}: API server answered ${answer}: it rejected our credential`, { cause });
  if (httpStatus === 403) return new KubeApiError(`${what}: API server answered ${answer}: check this function's RBAC`, { cause });
  return new KubeApiError(`${what}: API server answered ${answer}`, { cause });
}

/** Retry-After (seconds or HTTP date), else the Status `details.retryAfterSeconds`, in ms. */
function retryAfterMs(header: string | null, body: unknown, now: number): number | undefined {
  if (header !== null && header.trim() !== "") {
    const seconds = Number(header);
    if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
    const date = Date.parse(header);
    if (Number.isFinite(date)) return Math.max(0, date - now);
  }
  const seconds = readStatus(body)?.details?.retryAfterSeconds;
  return seconds === undefined ? undefined : seconds * 1000;
}
