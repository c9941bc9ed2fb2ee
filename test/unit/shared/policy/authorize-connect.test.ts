/** An exec whose pod the policy asked for but was never loaded: our own bug, which the rule table cannot reach. */
import { it } from "vitest";
import { decideAuthorize, planAuthorize } from "../../../../shared/policy/authorize.ts";
import { connect, expectDenied, load } from "./review-facts.ts";

it("fails closed when the pod of an exec was not loaded at all (our bug, 500)", () => {
  const plan = planAuthorize(connect("exec"), { requestingUser: "ephemeral", enforcement: "deny" });
  expectDenied(decideAuthorize(plan, load(plan.load, {})), [["ERR_INTERNAL", 500]]);
});
