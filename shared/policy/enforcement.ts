import { pickStatus, type AdmissionError } from "../errors.ts";
import { truncate } from "./checks.ts";
import type { Decision, EnforcementMode } from "./review.ts";

/** Longest audit annotation value we send: they are kept in every audit event of the request. */
export const MAX_AUDIT_VALUE_LENGTH = 1024;
const cap = (text: string) => truncate(text, MAX_AUDIT_VALUE_LENGTH - 1);

/**
 * Adds the audit annotations (`decision`: allowed, denied or would-deny; `credspecs`: the sorted names, never contents;
 * a denial's `codes`; `would-deny`: status, codes and places) and, with `warn`, allows a denial with a warning. Warn
 * mode never blocks, our own failures (500) included: an enforcing webhook runs beside it.
 */
export function applyEnforcement(outcome: Decision, credSpecNames: Iterable<string>, mode: EnforcementMode): Decision {
  const names = new Set(credSpecNames);
  if (!outcome.allowed) for (const error of outcome.errors) if (error.where?.credSpecName !== undefined) names.add(error.where.credSpecName);
  const annotations: Record<string, string> = names.size === 0 ? {} : { credspecs: cap([...names].sort().join(",")) };
  if (outcome.allowed) return { ...outcome, auditAnnotations: { decision: "allowed", ...annotations } };
  annotations.codes = cap([...new Set(outcome.errors.map((e) => e.code))].join(","));
  if (mode === "deny") return { ...outcome, auditAnnotations: { decision: "denied", ...annotations } };
  const summary = summarize(outcome.errors);
  return {
    allowed: true,
    warnings: [`ENFORCEMENT=warn: gmsa-webhooks would deny this request: ${summary}`, ...(outcome.warnings ?? [])],
    auditAnnotations: { decision: "would-deny", ...annotations, "would-deny": cap(summary) },
  };
}

/** `403 ERR_CREDSPEC_NOT_ALLOWED at container "app" (credspec "webapp1"); …`: no messages, a 500's may hold internals. */
function summarize(errors: AdmissionError[]): string {
  const parts = errors.map((e) => {
    const place = e.where === undefined ? "" : ` at ${e.where.place}`;
    const credspec = e.where?.credSpecName === undefined ? "" : ` (credspec "${e.where.credSpecName}")`;
    return `${e.code}${place}${credspec}`;
  });
  return `${pickStatus(errors)} ${[...new Set(parts)].join("; ")}`;
}
