/**
 * One API call with the credential, the deadline, one retry after a 401 with a fresh credential, and one retry of a
 * GET after a transport error, 429 or 5xx (docs/configuration.md, Talking to the Kubernetes API). A redirect is
 * refused, never followed: the next hop is not the API server we trust (and would receive our credential).
 */
import * as z from "zod/mini";
import "../zod-english.ts";
import { awaitWithin, sleep } from "../deadline.ts";
import { isTokenCredential, type TokenSource } from "../credentials/token-source.ts";
import { AdmissionError, shortErrorCode } from "../errors.ts";
import type { CallTally, KubeCallCode, KubeObserver, KubeResource } from "../observer.ts";
import { parseJson } from "../json.ts";

/** Per-call options: every call honours the review's deadline; `tally` counts for the review's log line. */
export type CallOptions = { signal: AbortSignal; tally?: CallTally | undefined };

/** Upper bound of one call, retries included, for what has no review deadline: half the default webhook timeout. */
export const KUBE_REQUEST_TIMEOUT_MS = 5_000;

/** A PEM client certificate and its PEM key, for the TLS handshake. */
export type ClientCertificate = { certificate: string; key: string };

/** What the client sends: a fetch RequestInit narrowed to what its calls use. */
export type KubeRequestInit = {
  method: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  redirect?: "manual";
};

/** What the client reads of an answer: a fetch Response, or the node:https transport's answer without building one. */
export type KubeResponse = Pick<Response, "status" | "text"> & { headers: Pick<Headers, "get"> };

/** fetch, with the client certificate to present (exec plugins may issue one per refresh) on Node's node:https. */
export type KubeFetch = (
  url: string,
  init: KubeRequestInit,
  clientCertificate?: ClientCertificate,
) => Promise<KubeResponse>;

/** Options of {@link createKubeRequester}. */
export interface KubeRequesterOptions {
  /** The kubeconfig `server`; a trailing slash is dropped. */
  server: string;
  fetch: KubeFetch;
  /** Absent: the client certificate of the transport is the credential. */
  tokenSource?: TokenSource | undefined;
  /** Default {@link KUBE_REQUEST_TIMEOUT_MS}. */
  requestTimeoutMs?: number;
  /** Pause before retrying a GET when the server gave no Retry-After. Default 200. */
  retryDelayMs?: number;
  /** kubeconfig `disable-compression`: ask for identity encoding. */
  disableCompression?: boolean;
  /** Clock in epoch ms, for Retry-After. Default `Date.now`. */
  now?: (() => number) | undefined;
  observer?: KubeObserver | undefined;
}

/**
 * One call. `path` is absolute and encoded; `resource` labels metrics; `what` names it in errors. `text`: a success
 * answers plain text (a function's `/readyz` through the API server's service proxy answers `ok`, or `not ready: ...`),
 * kept as it came; every other call needs a JSON body on success.
 */
export type KubeRequest = CallOptions & {
  method: "GET" | "POST";
  path: string;
  resource: KubeResource;
  body?: unknown;
  what: string;
  text?: boolean;
};

/**
 * The final answer: any HTTP status; `body` is the parsed JSON, if any (with `text`, the text where it is not JSON);
 * `headers` for the CLI (dry runs' Warning).
 */
export type KubeAnswer = { status: number; body: unknown; headers?: KubeResponse["headers"] };

export type KubeRequester = (request: KubeRequest) => Promise<KubeAnswer>;

/** Builds the requester all kube calls go through. */
export function createKubeRequester(options: KubeRequesterOptions): KubeRequester {
  const base = options.server.replace(/\/+$/, "");
  const {
    tokenSource,
    observer,
    requestTimeoutMs: timeoutMs = KUBE_REQUEST_TIMEOUT_MS,
    retryDelayMs = 200,
    now = Date.now,
  } = options;

  return async ({ method, path, resource, body, what, signal, tally, text: textAnswer = false }) => {
    const deadline = AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
    const deadlineAt = now() + timeoutMs;
    const deadlineError = () =>
      new AdmissionError(`${what}: no answer from the API server within the deadline`, {
        code: "ERR_DEADLINE_EXCEEDED",
      });
    const attempted = (code: KubeCallCode, startedAt: number): void => {
      if (tally !== undefined) tally.kubeRequests++;
      observer?.kubeRequest(
        method === "GET" ? "get" : "create",
        resource,
        code,
        (performance.now() - startedAt) / 1000,
      );
    };
    let refreshed = false;
    let retried = false;
    /** A GET is tried once more, after `delayMs`, if that still ends within the deadline. */
    const retryAfter = async (delayMs: number): Promise<boolean> => {
      if (method !== "GET" || retried || now() + delayMs >= deadlineAt) return false;
      retried = true;
      return sleep(delayMs, deadline);
    };
    for (;;) {
      if (deadline.aborted) throw deadlineError();
      const credential = await tokenSource?.getCredential({ signal: deadline, tally }).catch((error: unknown) => {
        throw error instanceof AdmissionError
          ? error.withContext(what)
          : new AdmissionError(`${what}: no credential`, { code: "ERR_CREDENTIALS", cause: error });
      });
      const headers: Record<string, string> = { Accept: "application/json", "User-Agent": "gmsa-webhooks" };
      if (body !== undefined) headers["Content-Type"] = "application/json";
      if (options.disableCompression === true) headers["Accept-Encoding"] = "identity";
      let clientCertificate: ClientCertificate | undefined;
      if (credential !== undefined && isTokenCredential(credential))
        headers["Authorization"] = `Bearer ${credential.token}`;
      else if (credential !== undefined)
        clientCertificate = { certificate: credential.clientCertificateData, key: credential.clientKeyData };
      const init: KubeRequestInit = { method, headers, signal: deadline, redirect: "manual" };
      if (body !== undefined) init.body = JSON.stringify(body);
      let response: KubeResponse;
      let text: string;
      const startedAt = performance.now();
      try {
        response = await awaitWithin(options.fetch(`${base}${path}`, init, clientCertificate), deadline, deadlineError);
        text = await response.text();
      } catch (error) {
        attempted(deadline.aborted ? "timeout" : "error", startedAt);
        if (!deadline.aborted && (await retryAfter(retryDelayMs))) continue;
        if (deadline.aborted) throw deadlineError();
        throw new AdmissionError(`${what}: API server unreachable (${shortErrorCode(error)})`, {
          code: "ERR_KUBE_API",
          cause: error,
        });
      }
      const success = response.status >= 200 && response.status < 300;
      // With `text`, the API server's own errors are still JSON Status; the function's refusals are its text.
      const parsedBody =
        text === "" ? undefined : textAnswer ? (success ? text : (parseJson(text) ?? text)) : parseJson(text);
      const answer: KubeAnswer = { status: response.status, body: parsedBody, headers: response.headers };
      attempted(answer.status, startedAt);
      if (answer.status >= 300 && answer.status < 400) {
        // Where it pointed goes to the log only (the cause); the pod's author learns the status.
        throw new AdmissionError(`${what}: API server answered ${answer.status}, a redirect, which is never followed`, {
          code: "ERR_KUBE_API",
          cause: { httpStatus: answer.status, location: response.headers.get("Location") },
        });
      }
      const ok = success;
      if (credential !== undefined && ok) tokenSource?.accepted?.(credential);
      if (answer.status === 401 && credential !== undefined && tokenSource !== undefined) {
        // Even after the one retry: the credential is known bad, and repeated refusals make the source back off.
        tokenSource.invalidate(credential);
        if (!refreshed) {
          refreshed = true;
          continue;
        }
      }
      // 429 and 5xx are worth one more try (docs/security.md, Fail closed).
      if (
        (answer.status === 429 || answer.status >= 500) &&
        (await retryAfter(retryAfterMs(response, answer.body, now()) ?? retryDelayMs))
      )
        continue;
      if (ok && answer.body === undefined)
        throw new AdmissionError(`${what}: API server answered ${answer.status} without a JSON body`, {
          code: "ERR_KUBE_API",
        });
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

/** The error for a final non-success answer to `what`; the Status message goes into `cause`, for logs only. */
export function errorFromAnswer(what: string, httpStatus: number, body: unknown): AdmissionError {
  const status = readStatus(body);
  const answer = `${what}: API server answered ${httpStatus}${status?.reason ? ` ${status.reason}` : ""}`;
  const cause = { httpStatus, reason: status?.reason, message: status?.message };
  if (httpStatus === 401)
    return new AdmissionError(`${answer}: it rejected our credential`, { code: "ERR_CREDENTIALS", cause });
  return new AdmissionError(httpStatus === 403 ? `${answer}: check this function's RBAC` : answer, {
    code: "ERR_KUBE_API",
    cause,
  });
}

/** Retry-After (seconds or HTTP date), else the Status `details.retryAfterSeconds`, in ms. */
function retryAfterMs(response: KubeResponse, body: unknown, now: number): number | undefined {
  const header = response.headers.get("Retry-After")?.trim();
  if (header) {
    const seconds = Number(header);
    if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
    const date = Date.parse(header);
    if (Number.isFinite(date)) return Math.max(0, date - now);
  }
  const seconds = readStatus(body)?.details?.retryAfterSeconds;
  return seconds === undefined ? undefined : seconds * 1000;
}
