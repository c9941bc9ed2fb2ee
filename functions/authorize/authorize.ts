import type { AdmissionOutcome } from "../../shared/admission/response.ts";
import { readReview, type AdmissionReviewRequest } from "../../shared/admission/review.ts";
import { decideAuthorize, planAuthorize } from "../../shared/policy/authorize.ts";
import { loadFacts } from "../load-facts.ts";
import type { ReviewContext } from "../review-context.ts";

/**
 * The validating webhook: plan (shared/policy), load (each credspec and each subject's access once, concurrently),
 * decide (with ENFORCEMENT and the audit annotations).
 */
export async function authorizeReview({ request }: AdmissionReviewRequest, ctx: ReviewContext): Promise<AdmissionOutcome> {
  const plan = planAuthorize(readReview(request), ctx.settings);
  return decideAuthorize(plan, await loadFacts(plan.load, ctx));
}
