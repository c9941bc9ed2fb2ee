import { AdmissionError, pickStatus } from "../errors.ts";
import type { Decision } from "../policy/review.ts";
import type { AdmissionVersion } from "./review.ts";

/** The AdmissionReview we answer with. */
export interface AdmissionReviewResponse {
  apiVersion: AdmissionVersion;
  kind: "AdmissionReview";
  response: {
    uid: string;
    allowed: boolean;
    status?: { status: "Failure"; code: number; reason: string; message: string };
    patch?: string;
    patchType?: "JSONPatch";
    warnings?: string[];
    auditAnnotations?: Record<string, string>;
  };
}

/** Denial messages are capped so one review cannot produce an unbounded reply. */
export const MAX_MESSAGE_LENGTH = 2048;
/** The API server truncates each warning past 256 characters and drops them past 4 KiB in all. */
export const MAX_WARNING_LENGTH = 256;
export const MAX_WARNINGS_TOTAL = 4096;

const REASONS: Record<number, string> = { 400: "BadRequest", 403: "Forbidden", 422: "Invalid", 500: "InternalError" };

/** Turns an outcome into the AdmissionReview reply: uid echoed, request's apiVersion, patch only when non-empty. */
export function buildAdmissionResponse(apiVersion: AdmissionVersion, uid: string, outcome: Decision): AdmissionReviewResponse {
  const response: AdmissionReviewResponse["response"] = { uid, allowed: outcome.allowed };
  if (outcome.allowed && outcome.patch !== undefined && outcome.patch.length > 0) {
    response.patch = encodeBase64(JSON.stringify(outcome.patch));
    response.patchType = "JSONPatch";
  }
  if (!outcome.allowed) {
    const errors = outcome.errors.length > 0 ? outcome.errors : [new AdmissionError("denied without a reason", { code: "ERR_INTERNAL" })];
    const code = pickStatus(errors);
    response.status = { status: "Failure", code, reason: REASONS[code] ?? "Invalid", message: joinMessages(errors, uid) };
  }
  const warnings = capWarnings(outcome.warnings ?? []);
  if (warnings.length > 0) response.warnings = warnings;
  if (Object.keys(outcome.auditAnnotations ?? {}).length > 0) response.auditAnnotations = { ...outcome.auditAnnotations };
  return { apiVersion, kind: "AdmissionReview", response };
}

function joinMessages(errors: AdmissionError[], uid: string): string {
  const parts: string[] = [];
  let length = 0;
  for (const [i, error] of errors.entries()) {
    // Our own bugs and credential failures get a generic text: their message may hold internals (plugin stderr,
    // token paths, issuer URLs, account ids); the uid finds the log line, which has the detail.
    let text = error.message;
    if (error.code === "ERR_INTERNAL") text = describeHidden(error, uid, "internal error in the GMSA webhook");
    else if (error.code === "ERR_CREDENTIALS") text = describeHidden(error, uid, "the GMSA webhook could not authenticate to the API server", ", so it fails closed");
    const room = MAX_MESSAGE_LENGTH - 40 - length;
    if (text.length > room) {
      // One long message (thousands of containers named) is cut, not dropped: the reader still learns what failed.
      if (i > 0 && room < 200) {
        parts.push(`… and ${errors.length - i} more`);
        break;
      }
      text = `${text.slice(0, room)}…`;
    }
    parts.push(text);
    length += text.length + 2;
  }
  return parts.join("; ");
}

/** What failed, where, and where its detail is logged; never the detail, which may quote input or internals. */
function describeHidden(error: AdmissionError, uid: string, what: string, after = ""): string {
  const place = error.where === undefined ? "" : `${error.where.place}: `;
  const credspec = error.where?.credSpecName === undefined ? "" : ` while checking credspec "${error.where.credSpecName}"`;
  return `${place}${what}${credspec}${after} (its log has the cause under request uid ${uid.slice(0, 64)})`;
}

function capWarnings(warnings: string[]): string[] {
  const out: string[] = [];
  let total = 0;
  for (const warning of warnings) {
    const text = warning.length > MAX_WARNING_LENGTH ? `${warning.slice(0, MAX_WARNING_LENGTH - 1)}…` : warning;
    if (total + text.length > MAX_WARNINGS_TOTAL) break;
    out.push(text);
    total += text.length;
  }
  return out;
}

/** Text without a character outside printable ASCII is its own UTF-8, which `btoa` takes as it is. */
const NOT_PRINTABLE_ASCII = /[^ -~]/;

function encodeBase64(text: string): string {
  // A patch is almost always ASCII; the round trip through UTF-8 bytes cost 3% of a warm expand review's CPU.
  if (!NOT_PRINTABLE_ASCII.test(text)) return btoa(text);
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  // In chunks: String.fromCharCode takes each byte as an argument, and arguments are limited.
  for (let i = 0; i < bytes.length; i += 0x2000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x2000));
  return btoa(binary);
}
