/**
 * API server answers to typed errors, from the HTTP status and the Status `reason` only, never from message text
 * (windows-gmsa's `isNotFoundError` matched "not found" in the message, which any wording change breaks).
 */
import { CredentialsError, KubeApiError, type AdmissionError } from "../errors.ts";

/** The parts of a metav1.Status we read. */
export interface KubeStatus {
  kind: "Status";
  reason?: string;
  message?: string;
  details?: { name?: string; group?: string; kind?: string; retryAfterSeconds?: number };
}

/** The body as a metav1.Status, if it is one. */
export function readStatus(body: unknown): KubeStatus | undefined {
  if (typeof body !== "object" || body === null || (body as { kind?: unknown }).kind !== "Status") return undefined;
  const status = body as Record<string, unknown>;
  const result: KubeStatus = { kind: "Status" };
  if (typeof status["reason"] === "string") result.reason = status["reason"];
  if (typeof status["message"] === "string") result.message = status["message"];
  if (typeof status["details"] === "object" && status["details"] !== null) {
    result.details = status["details"];
  }
  return result;
}

/** "503 ServiceUnavailable", or just "503" when the body carried no reason. */
export function describeAnswer(httpStatus: number, status: KubeStatus | undefined): string {
  return status?.reason ? `${httpStatus} ${status.reason}` : `${httpStatus}`;
}

/**
 * The error for a final non-success answer to `what` ("reading GMSACredentialSpec \"x\""). The Status message
 * goes into `cause` for logs, not into the message that reaches the pod's author.
 */
export function errorFromAnswer(what: string, httpStatus: number, body: unknown): AdmissionError {
  const status = readStatus(body);
  const answer = describeAnswer(httpStatus, status);
  const cause = { httpStatus, reason: status?.reason, message: status?.message };
  if (httpStatus === 401) {
    return new CredentialsError(`${what}: API server answered ${answer}: it rejected our credential`, { cause });
  }
  if (httpStatus === 403) {
    return new KubeApiError(`${what}: API server answered ${answer}: check this function's RBAC`, { cause });
  }
  return new KubeApiError(`${what}: API server answered ${answer}`, { cause });
}

/** Whether a GET answered with `httpStatus` is worth one more try (docs/security.md, Fail closed). */
export function isRetryableStatus(httpStatus: number): boolean {
  return httpStatus === 429 || httpStatus >= 500;
}
