import { isEphemeralContainersUpdate, otherKindWarning, readPod } from "../../shared/admission/request.ts";
import type { AdmissionOutcome } from "../../shared/admission/response.ts";
import { isPodReview, type AdmissionReviewRequest } from "../../shared/admission/review.ts";
import { decideAuthorize, planAuthorize } from "../../shared/policy/authorize.ts";
import { checkUpdate } from "../../shared/policy/update.ts";
import { isNewEphemeralContainer, listOptionsPlaces, type OptionsPlace } from "../../shared/policy/walk.ts";
import { listRunAsUserWarnings } from "../../shared/policy/warnings.ts";
import { loadAccess, loadCredSpecs } from "../load-facts.ts";
import type { ReviewContext } from "../review-context.ts";

/**
 * The validating webhook. UPDATEs may not touch GMSA settings (no API call); CREATEs and new ephemeral
 * containers need an existing credspec the service account may `use`, with equal inlined contents.
 * Anything that goes wrong is a denial: fail closed.
 */
export async function authorizeReview({ request }: AdmissionReviewRequest, ctx: ReviewContext): Promise<AdmissionOutcome> {
  if (!isPodReview(request)) return { allowed: true, warnings: [otherKindWarning(request)] };
  if (request.operation === "DELETE" || request.operation === "CONNECT") return { allowed: true };

  const pod = readPod(request);
  let targets: ((place: OptionsPlace) => boolean) | undefined;
  if (request.operation === "UPDATE") {
    const ephemeral = isEphemeralContainersUpdate(request);
    targets = ephemeral ? isNewEphemeralContainer(readPod(request, "oldObject")) : undefined;
    const newPlaces = new Set(targets ? listOptionsPlaces(pod).filter(targets).map((p) => p.label) : []);
    const changes = checkUpdate(readPod(request, "oldObject"), pod, (label) => newPlaces.has(label));
    if (changes.length > 0) return { allowed: false, errors: changes };
    if (!ephemeral) return { allowed: true };
  }

  const plan = planAuthorize(pod, { maxCredSpecNames: ctx.settings.maxCredSpecNames, ...(targets ? { targets } : {}) });
  if (plan.errors.length > 0) return { allowed: false, errors: plan.errors };
  const warnings = listRunAsUserWarnings(pod);
  if (plan.names.size === 0) return { allowed: true, warnings };

  const subject = {
    namespace: request.namespace ?? pod.metadata?.namespace ?? "default",
    serviceAccount: pod.spec?.serviceAccountName || "default",
  };
  const [credspecs, access] = await Promise.all([
    loadCredSpecs(ctx.gmsa, plan.names, ctx.signal),
    loadAccess(ctx.gmsa, subject, plan.names, ctx.signal),
  ]);
  const errors = decideAuthorize(plan, { credspecs, access, ...subject });
  return errors.length > 0 ? { allowed: false, errors, warnings } : { allowed: true, warnings };
}
