/**
 * expand's decision when a credspec the plan named is missing from the facts: our own bug, which the rule table
 * (test/unit/rules) cannot reach because its runners load every fact a plan names.
 */
import { it } from "vitest";
import { decideExpand, planExpand } from "../../../../shared/policy/expand.ts";
import { PLACES, podWithGmsaAt } from "../../../support/pods.ts";
import { create, expectDenied } from "./review-facts.ts";

it.each(PLACES)(
  "fails closed (500) when the credspec named on the $kind is missing from the facts, rather than allowing it unexpanded",
  ({ kind, label }) => {
    const plan = planExpand(create(podWithGmsaAt(kind, { gmsaCredentialSpecName: "webapp1" })), {
      randomHostname: false,
    });
    const decision = decideExpand(plan, { credspecs: new Map(), access: [], randomBytes: new Uint8Array() });
    expectDenied(decision, [["ERR_INTERNAL", 500]], label);
  },
);
