/**
 * The rule table against the policy alone: readReview, plan, the facts the plan names loaded from the fake world (by the
 * functions' loadFacts), decide, and the decision as an AdmissionReview reply. No app, no HTTP.
 */
import { describe, it } from "vitest";
import { loadFacts } from "../../../functions/review-handlers.ts";
import { buildAdmissionResponse, parseAdmissionReview, type Pod } from "../../../shared/admission/review.ts";
import { asAdmissionError } from "../../../shared/errors.ts";
import { decideAuthorize, planAuthorize, planPodRead } from "../../../shared/policy/authorize.ts";
import { decideExpand, planExpand } from "../../../shared/policy/expand.ts";
import { readReview, type Fact } from "../../../shared/policy/facts.ts";
import { fixedRandomBytes } from "../../support/app.ts";
import { createFakeGmsaClient } from "../../support/fake-gmsa-client.ts";
import { buildReview } from "../../support/reviews.ts";
import { DEFAULT_SETTINGS, DEFAULT_WORLD, expectRuleOutcome, RULE_CASES, type RuleCase } from "./cases.ts";

async function decideByPolicy(rule: RuleCase) {
  const gmsa = createFakeGmsaClient({ ...DEFAULT_WORLD, ...rule.world });
  const settings = { ...DEFAULT_SETTINGS, ...rule.settings };
  const parsed = parseAdmissionReview(buildReview(rule.pod, rule.review));
  if (!parsed.ok) throw new Error(parsed.problem);
  const { apiVersion, request } = parsed.value;
  const ctx = { gmsa, signal: new AbortController().signal, randomBytes: fixedRandomBytes };

  let review = readReview(request);
  let decision;
  if (rule.fn === "expand") {
    const plan = planExpand(review, settings);
    decision = decideExpand(plan, await loadFacts(plan.load, ctx));
  } else {
    const target = planPodRead(review, settings);
    if (target !== undefined && review.object === "pod" && review.operation === "CONNECT") {
      const pod = await gmsa.getPod(target.namespace, target.name, ctx).then(
        (value): Fact<Pod> => ({ ok: true, value }),
        (error: unknown): Fact<Pod> => ({ ok: false, error: asAdmissionError(error) }),
      );
      review = { ...review, pod };
    }
    const plan = planAuthorize(review, settings);
    decision = decideAuthorize(plan, await loadFacts(plan.load, ctx));
  }
  return { reply: buildAdmissionResponse(apiVersion, request.uid, decision), gmsa };
}

describe("the GMSA rules, by the policy", () => {
  it.each(RULE_CASES.map((rule) => [rule.name, rule] as const))("%s", async (_name, rule) => {
    const { reply, gmsa } = await decideByPolicy(rule);
    expectRuleOutcome(rule, reply, gmsa);
  });
});
