import type { AdmissionOutcome } from "../../shared/admission/response.ts";
import { readReview, type AdmissionReviewRequest } from "../../shared/admission/review.ts";
import { decideExpand, planExpand } from "../../shared/policy/expand.ts";
import { loadFacts } from "../load-facts.ts";
import type { ReviewContext } from "../review-context.ts";

/** The mutating webhook: plan (shared/policy), load (each credspec once, concurrently), decide. */
export async function expandReview({ request }: AdmissionReviewRequest, ctx: ReviewContext): Promise<AdmissionOutcome> {
  const plan = planExpand(readReview(request), ctx.settings);
  return decideExpand(plan, await loadFacts(plan.load, ctx));
}
