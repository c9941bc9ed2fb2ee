/**
 * infra/policy/: the committed policy.yaml is what render-policy.ts writes, it sees exactly the pods the
 * webhooks see, and the binding names it. The API server's verdicts are in test/e2e/policy.test.ts.
 */
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { DEFAULT_MAX_CREDSPECS, POLICY_NAME, renderPolicy } from "../../../infra/policy/render-policy.ts";

const read = (path: string) => readFile(new URL(`../../../infra/${path}`, import.meta.url), "utf8");

interface Policy {
  metadata: { name: string };
  spec: {
    matchConstraints: { namespaceSelector: unknown };
    matchConditions: { name: string; expression: string }[];
    variables: { name: string }[];
    validations: { reason: string }[];
  };
}

describe("infra/policy", () => {
  it("policy.yaml is up to date with render-policy.ts (node infra/policy/render-policy.ts > infra/policy/policy.yaml)", async () => {
    expect(await read("policy/policy.yaml")).toBe(await renderPolicy());
  });

  it("matches the pods and namespaces the webhooks match", async () => {
    const policy = parse(await read("policy/policy.yaml")) as Policy;
    const webhook = (
      parse((await read("webhooks/authorize.yaml")).replace(/\$\{[A-Z_]+\}/g, "x")) as {
        webhooks: { namespaceSelector: unknown; matchConditions: unknown }[];
      }
    ).webhooks[0]!;
    expect(policy.spec.matchConditions).toEqual(webhook.matchConditions);
    expect(policy.spec.matchConstraints.namespaceSelector).toEqual(webhook.namespaceSelector);
  });

  it(`checks ${DEFAULT_MAX_CREDSPECS} distinct names by default, one authorization check per validation`, async () => {
    const policy = parse(await renderPolicy()) as Policy;
    expect(policy.spec.variables.filter((v) => /^name\d+$/.test(v.name))).toHaveLength(DEFAULT_MAX_CREDSPECS);
    expect(policy.spec.validations.map((v) => v.reason)).toEqual([
      "Invalid",
      "Invalid",
      ...Array<string>(DEFAULT_MAX_CREDSPECS).fill("Forbidden"),
    ]);
    const small = await renderPolicy(2);
    expect(small.match(/check\('use'\)/g)).toHaveLength(2);
    await expect(renderPolicy(0)).rejects.toThrow(TypeError);
  });

  it("binds the policy by name, denying", async () => {
    const binding = parse(await read("policy/binding.yaml")) as {
      spec: { policyName: string; validationActions: string[] };
    };
    expect(binding.spec).toEqual({ policyName: POLICY_NAME, validationActions: ["Deny"] });
  });
});
