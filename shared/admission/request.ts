import { InvalidReviewError } from "../errors.ts";
import type { ContainerList, Pod } from "../policy/pod.ts";
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

/**
 * The pod in `request.object` (or `oldObject`). Container names must be unique across containers, init and
 * ephemeral containers, as the API server's validation requires: the GMSA rules name places by container
 * name, and a webhook may see a pod before that validation has run.
 * @throws InvalidReviewError (400) naming the bad field or the repeated name.
 */
export function readPod(request: AdmissionRequest, field: "object" | "oldObject" = "object"): Pod {
  const value = request[field];
  if (value === undefined || value === null) throw new InvalidReviewError(`request.${field} is missing`);
  const result = parsePod(value, field);
  if (!result.ok) throw new InvalidReviewError(result.problem);
  const names = new Set<string>();
  for (const list of ["containers", "initContainers", "ephemeralContainers"] satisfies ContainerList[]) {
    for (const { name } of result.value.spec?.[list] ?? []) {
      if (names.has(name)) throw new InvalidReviewError(`request.${field}: container name ${JSON.stringify(name.slice(0, 80))} is used more than once`);
      names.add(name);
    }
  }
  return result.value;
}
