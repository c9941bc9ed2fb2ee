/**
 * The rule table against the policy alone: readReview, plan, the facts the plan names loaded from the fake world,
 * decide, and the decision as an AdmissionReview reply. No app, no HTTP.
 */
import { describe, it } from "vitest";
import { buildAdmissionResponse, parseAdmissionReview } from "../../../shared/admission/review.ts";
import { asAdmissionError } from "../../../shared/errors.ts";
import { decideAuthorize, planAuthorize, planPodRead } from "../../../shared/policy/authorize.ts";
import { decideExpand, planExpand } from "../../../shared/policy/expand.ts";
import { readReview, type Fact, type LoadedFacts, type LoadPlan } from "../../../shared/policy/facts.ts";
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
  const call = { signal: new AbortController().signal };
  const fact = async <T>(load: () => Promise<T>): Promise<Fact<T>> => {
    try {
      return { ok: true, value: await load() };
    } catch (error) {
      return { ok: false, error: asAdmissionError(error) };
    }
  };
  const each = async <T>(names: Iterable<string>, load: (name: string) => Promise<T>) =>
    new Map(await Promise.all([...names].map(async (name) => [name, await fact(() => load(name))] as const)));
  const loadPlan = async (plan: LoadPlan): Promise<LoadedFacts> => ({
    credspecs: await each(plan.credspecs, (name) => gmsa.getCredSpecContents(name, call)),
    access: await Promise.all(
      plan.access.map(({ subject, names }) =>
        each(names, (credSpecName) => gmsa.canUseCredSpec({ ...subject, credSpecName }, call)),
      ),
    ),
    randomBytes: fixedRandomBytes(plan.randomBytes),
  });

  let review = readReview(request);
  let decision;
  if (rule.fn === "expand") {
    const plan = planExpand(review, settings);
    decision = decideExpand(plan, await loadPlan(plan.load));
  } else {
    const target = planPodRead(review, settings);
    if (target !== undefined && review.object === "pod" && review.operation === "CONNECT")
      review = { ...review, pod: await fact(() => gmsa.getPod(target.namespace, target.name, call)) };
    const plan = planAuthorize(review, settings);
    decision = decideAuthorize(plan, await loadPlan(plan.load));
  }
  return { reply: buildAdmissionResponse(apiVersion, request.uid, decision), gmsa };
}

describe("the GMSA rules, by the policy", () => {
  it.each(RULE_CASES.map((rule) => [rule.name, rule] as const))("%s", async (_name, rule) => {
    const { reply, gmsa } = await decideByPolicy(rule);
    expectRuleOutcome(rule, reply, gmsa);
  });
});
