import type { AdmissionError } from "../errors.ts";
import type { PatchOperation } from "./patch.ts";

/**
 * What the policy decided about one review: allowed (expand: with the patch that inlines the credspecs) or denied
 * with every refusal, each carrying its status code and place. `auditAnnotations` are bare keys: the API server
 * prefixes each with the webhook's name.
 */
export type Decision =
  | { allowed: true; patch?: PatchOperation[]; warnings?: string[]; auditAnnotations?: Record<string, string> }
  | { allowed: false; errors: AdmissionError[]; warnings?: string[]; auditAnnotations?: Record<string, string> };

/** Allowed with `warnings` (left out when none), or denied with `errors` when there are any. */
export function decide(errors: AdmissionError[], warnings: string[] = []): Decision {
  const warned = warnings.length === 0 ? {} : { warnings };
  return errors.length === 0 ? { allowed: true, ...warned } : { allowed: false, errors, ...warned };
}
