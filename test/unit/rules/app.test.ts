/** The rule table through the app: each case's review POSTed to createApp with the case's fake world. */
import { describe, expect, it } from "vitest";
import { createTestApp, postReview } from "../../support/app.ts";
import { createFakeGmsaClient } from "../../support/fake-gmsa-client.ts";
import { buildReview } from "../../support/reviews.ts";
import { CONTENT_MARKERS, DEFAULT_WORLD, expectRuleOutcome, LEAK_MARKER, RULE_CASES } from "./cases.ts";

describe("the GMSA rules, through the app", () => {
  it.each(RULE_CASES.map((rule) => [rule.name, rule] as const))("%s", async (_name, rule) => {
    const gmsa = createFakeGmsaClient({ ...DEFAULT_WORLD, ...rule.world });
    const { app, rawLogs } = createTestApp({ gmsa, settings: rule.settings ?? {} });
    const reply = await postReview(app, rule.fn, buildReview(rule.pod, rule.review));
    expectRuleOutcome(rule, reply, gmsa);
    for (const marker of [...CONTENT_MARKERS, LEAK_MARKER]) expect(rawLogs()).not.toContain(marker);
  });
});
