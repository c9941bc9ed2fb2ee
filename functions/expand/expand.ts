import { isEphemeralContainersUpdate, otherKindWarning, readPod } from "../../shared/admission/request.ts";
import type { AdmissionOutcome } from "../../shared/admission/response.ts";
import { isPodReview, type AdmissionReviewRequest } from "../../shared/admission/review.ts";
import { expandPod, planExpand } from "../../shared/policy/expand.ts";
import { createRandomHostname, HOSTNAME_LENGTH } from "../../shared/policy/hostname.ts";
import { buildPodPatch } from "../../shared/policy/patch.ts";
import { isNewEphemeralContainer } from "../../shared/policy/walk.ts";
import { loadCredSpecs } from "../load-facts.ts";
import type { ReviewContext } from "../review-context.ts";

/**
 * The mutating webhook: inline the contents of every named credspec that has none. Parse, load (each
 * credspec once, concurrently), decide (policy), respond. Only CREATE and new ephemeral containers change.
 */
export async function expandReview({ request }: AdmissionReviewRequest, ctx: ReviewContext): Promise<AdmissionOutcome> {
  if (!isPodReview(request)) return { allowed: true, warnings: [otherKindWarning(request)] };
  const ephemeral = isEphemeralContainersUpdate(request);
  if (request.operation !== "CREATE" && !ephemeral) return { allowed: true };

  const pod = readPod(request);
  const options = {
    maxCredSpecNames: ctx.settings.maxCredSpecNames,
    ...(ephemeral ? { targets: isNewEphemeralContainer(readPod(request, "oldObject")) } : {}),
  };
  const plan = planExpand(pod, options);
  if (plan.errors.length > 0) return { allowed: false, errors: plan.errors };

  const facts = await loadCredSpecs(ctx.gmsa, plan.names, ctx.signal, ctx.tally);
  const hostname =
    ctx.settings.randomHostname && !ephemeral ? createRandomHostname(ctx.randomBytes(HOSTNAME_LENGTH)) : undefined;
  const result = expandPod(pod, facts, { ...options, ...(hostname === undefined ? {} : { hostname }) });
  if (result.errors.length > 0) return { allowed: false, errors: result.errors };
  return { allowed: true, patch: buildPodPatch(pod, result.pod) };
}
