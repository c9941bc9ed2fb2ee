/** manifests.test.ts holds infra/deploy/policy/ equal to this source; the API server's verdicts: e2e/policy.test.ts. */
import { describe, expect, it } from "vitest";
import {
  buildPolicy,
  buildPolicyBinding,
  DEFAULT_MAX_CREDSPECS,
  POLICY_NAME,
} from "../../../infra/build/manifests/policy.ts";

describe("infra/build/manifests/policy.ts", () => {
  it(`checks ${DEFAULT_MAX_CREDSPECS} distinct names by default, one authorization check per validation; the binding names it, denying`, () => {
    const policy = buildPolicy();
    expect(policy.spec.variables.filter((v) => /^name\d+$/.test(v.name))).toHaveLength(DEFAULT_MAX_CREDSPECS);
    expect(policy.spec.validations.map((v) => v.reason)).toEqual([
      "Invalid",
      "Invalid",
      ...Array<string>(DEFAULT_MAX_CREDSPECS).fill("Forbidden"),
    ]);
    const small = JSON.stringify(buildPolicy(2));
    expect(small.match(/check\('use'\)/g)).toHaveLength(2);
    expect(() => buildPolicy(0)).toThrow(TypeError);
    expect(buildPolicyBinding().spec).toEqual({ policyName: POLICY_NAME, validationActions: ["Deny"] });
  });
});
