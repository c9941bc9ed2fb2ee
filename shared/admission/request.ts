import { asAdmissionError, InvalidReviewError } from "../errors.ts";
import type { Requester } from "../policy/facts.ts";
import type { Pod } from "../policy/pod.ts";
import type { ReviewFacts } from "../policy/review.ts";
import { parsePod, type AdmissionRequest } from "./review.ts";

/**
 * What the policy reads from an admission request: the kind, the operation, the pods (checked by their schema),
 * the namespace and the requester. A review whose pod cannot be read comes back as `invalid` (400).
 */
export function readReview(request: AdmissionRequest): ReviewFacts {
  const { group, version, kind } = request.kind;
  if (group !== "" || kind !== "Pod") return { object: "other", group, version, kind };
  const { operation } = request;
  if (operation === "DELETE" || operation === "CONNECT") return { object: "pod", operation };
  try {
    const pod = readPod(request, "object");
    const common = { object: "pod", namespace: request.namespace ?? pod.metadata?.namespace ?? "default", pod, requester: readRequester(request) } as const;
    if (operation === "CREATE") return { ...common, operation };
    return { ...common, operation, subResource: request.subResource, oldPod: readPod(request, "oldObject") };
  } catch (error) {
    return { object: "invalid", error: asAdmissionError(error) };
  }
}

/**
 * The pod in `request.object` (or `oldObject`). Container names must be unique across containers, init and
 * ephemeral containers, as the API server's validation requires: the GMSA rules name places by container
 * name, and a webhook may see a pod before that validation has run.
 * @throws InvalidReviewError (400) naming the bad field or the repeated name.
 */
function readPod(request: AdmissionRequest, field: "object" | "oldObject"): Pod {
  const value = request[field];
  if (value === undefined || value === null) throw new InvalidReviewError(`request.${field} is missing`);
  const result = parsePod(value, field);
  if (!result.ok) throw new InvalidReviewError(result.problem);
  const names = new Set<string>();
  for (const list of ["containers", "initContainers", "ephemeralContainers"] as const) {
    for (const { name } of result.value.spec?.[list] ?? []) {
      if (names.has(name)) throw new InvalidReviewError(`request.${field}: container name ${JSON.stringify(name.slice(0, 80))} is used more than once`);
      names.add(name);
    }
  }
  return result.value;
}

/** The request's userInfo, when it names a user. */
function readRequester({ userInfo: info }: AdmissionRequest): Requester | undefined {
  if (info?.username === undefined || info.username === "") return undefined;
  return {
    username: info.username,
    ...(info.uid === undefined ? {} : { uid: info.uid }),
    ...(info.groups === undefined ? {} : { groups: info.groups }),
    ...(info.extra === undefined ? {} : { extra: info.extra }),
  };
}
