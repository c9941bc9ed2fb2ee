/**
 * authorize's decision when a fact the plan named is missing: our own bug, which the rule table (test/unit/rules)
 * cannot reach because its runners load every fact a plan names.
 */
import { describe, expect, it } from "vitest";
import { decideAuthorize, planAuthorize } from "../../../../shared/policy/authorize.ts";
import type { PolicySettings } from "../../../../shared/policy/facts.ts";
import { inlined, podWithGmsaAt, WEBAPP1_CREDSPEC } from "../../../support/pods.ts";
import { connect, create, expectDenied } from "./review-facts.ts";

const expanded1 = { gmsaCredentialSpecName: "webapp1", gmsaCredentialSpec: inlined(WEBAPP1_CREDSPEC) };
const nothingLoaded = { credspecs: new Map(), access: [new Map()], randomBytes: new Uint8Array() };
const settings = (enforcement: PolicySettings["enforcement"]) => ({
  requestingUser: "ephemeral" as const,
  enforcement,
});

describe("authorize with a planned fact missing", () => {
  it.each([
    ["a credspec's contents and access", () => create(podWithGmsaAt("pod", expanded1))],
    ["the pod of an exec", () => connect("exec")],
  ])("fails closed (500) when %s were not loaded, which ENFORCEMENT=warn allows as a would-deny", (_what, review) => {
    expectDenied(decideAuthorize(planAuthorize(review(), settings("deny")), nothingLoaded), [["ERR_INTERNAL", 500]]);
    expect(decideAuthorize(planAuthorize(review(), settings("warn")), nothingLoaded)).toMatchObject({
      allowed: true,
      auditAnnotations: { decision: "would-deny", codes: "ERR_INTERNAL" },
    });
  });
});
