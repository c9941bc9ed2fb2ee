import { InvalidReviewError } from "../errors.ts";
import type { Pod } from "../policy/pod.ts";
import { parsePod, type AdmissionRequest } from "./review.ts";

/** The warning for a review about anything but a Pod: allowed unchanged (DESIGN.md section 4). */
export function otherKindWarning(request: AdmissionRequest): string {
  const { group, version, kind } = request.kind;
  return `gmsa-webhooks only reviews core/v1 Pods; ${group === "" ? "core" : group}/${version} ${kind} was allowed unchanged (check the webhook's rules)`;
}

/** True for an UPDATE of the `pods/ephemeralcontainers` subresource (`kubectl debug`). */
export function isEphemeralContainersUpdate(request: AdmissionRequest): boolean {
  return request.operation === "UPDATE" && request.subResource === "ephemeralcontainers";
}

/** The pod in `request.object` (or `oldObject`). @throws InvalidReviewError (400) naming the bad field. */
export function readPod(request: AdmissionRequest, field: "object" | "oldObject" = "object"): Pod {
  const value = request[field];
  if (value === undefined || value === null) throw new InvalidReviewError(`request.${field} is missing`);
  const result = parsePod(value, field);
  if (!result.ok) throw new InvalidReviewError(result.problem);
  return result.value;
}

/** The name a denial uses for the pod: its name, else its generateName prefix, else the request's name. */
export function podDisplayName(request: AdmissionRequest, pod: Pod | undefined): string {
  return pod?.metadata?.name ?? (pod?.metadata?.generateName ? `${pod.metadata.generateName}*` : (request.name ?? ""));
}
