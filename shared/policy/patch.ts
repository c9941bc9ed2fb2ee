import fastJsonPatch from "fast-json-patch";
import type { Pod } from "./pod.ts";

/** One RFC 6902 operation. */
export type PatchOperation = fastJsonPatch.Operation;

/**
 * The RFC 6902 patch that turns `original` into `changed`. Computed by comparison (fast-json-patch), so
 * missing `securityContext` / `windowsOptions` parents become `add` operations of whole objects and the
 * patch always applies to the pod the API server holds.
 */
export function buildPodPatch(original: Pod, changed: Pod): PatchOperation[] {
  return fastJsonPatch.compare(original, changed);
}
