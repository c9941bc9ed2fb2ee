/**
 * exec and attach under REVIEW_REQUESTING_USER: both run code in a running pod's containers, as the pod's gMSA, as an
 * ephemeral container does, so the user who asks must be allowed to `use` every credspec the pod names
 * (docs/security.md, The requesting user). The request carries PodExecOptions or PodAttachOptions, not the pod:
 * authorize reads the pod first ({@link planPodRead}) and judges it here.
 */
import { AdmissionError } from "../errors.ts";
import { checkNames, distinctNames } from "./checks.ts";
import type { Subject } from "./facts.ts";
import { readPodGmsa, type GmsaReference } from "./references.ts";
import type { PodConnect, PolicySettings, ReviewFacts } from "./review.ts";

/** The CONNECT subresources that run code in a container; `portforward` and `proxy` only reach its ports. */
export const CODE_RUNNING_SUBRESOURCES: readonly string[] = ["exec", "attach"];

/** Whether the requester of this CONNECT is reviewed: exec or attach, with REVIEW_REQUESTING_USER `ephemeral` or `always`. */
export function reviewsConnect(review: PodConnect, mode: PolicySettings["requestingUser"]): boolean {
  return mode !== "off" && CODE_RUNNING_SUBRESOURCES.includes(review.subResource ?? "");
}

/** The pod to read before authorize can plan this review, if any: the target of a reviewed exec or attach. */
export function planPodRead(review: ReviewFacts, settings: Pick<PolicySettings, "requestingUser">): { namespace: string; name: string } | undefined {
  if (review.object !== "pod" || review.operation !== "CONNECT" || !reviewsConnect(review, settings.requestingUser)) return undefined;
  return { namespace: review.namespace, name: review.name };
}

/**
 * What authorize judges for a reviewed exec or attach: the requester's `use` of each credspec the pod names, at any
 * level (with a shared process namespace one container reaches another's processes). A pod that could not be read
 * is a refusal (fail closed). @throws Error when the pod was not loaded (our bug: a 500).
 */
export function judgeConnect(review: PodConnect): { refs?: GmsaReference[]; names?: Set<string>; errors?: AdmissionError[]; subjects?: Subject[] } {
  if (review.pod === undefined) throw new Error(`pod "${review.namespace}/${review.name}" was not loaded for ${review.subResource ?? "CONNECT"}`);
  if (!review.pod.ok) return { errors: [review.pod.error] };
  const via = `pods/${review.subResource ?? ""}`;
  const refs = readPodGmsa(review.pod.value).refs.map((ref) => ({ ...ref, label: `${via} into ${ref.label}` }));
  const names = distinctNames(refs);
  if (names.size === 0) return {};
  const invalid = checkNames(refs);
  if (invalid.length > 0) return { errors: invalid };
  if (review.requester === undefined) return { errors: [new AdmissionError("request.userInfo.username is missing", { code: "ERR_INVALID_REVIEW" })] };
  return { refs, names, subjects: [{ namespace: review.namespace, user: review.requester }] };
}
