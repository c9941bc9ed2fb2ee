import { describe, expect, it } from "vitest";
import { applyEnforcement, MAX_AUDIT_VALUE_LENGTH } from "../../../../shared/policy/authorize.ts";
import { AdmissionError, createRefusal } from "../../../../shared/errors.ts";

describe("applyEnforcement", () => {
  // A denial's annotations are rule-table rows, which write every key out: none can be an invalid qualified name.
  it("annotates an allowed decision with the credspec names, sorted", () => {
    const allowed = applyEnforcement({ allowed: true }, ["webapp2", "webapp1"], "deny");
    expect(allowed.auditAnnotations).toEqual({ decision: "allowed", credspecs: "webapp1,webapp2" });
  });

  it("warn: never blocks, our own failures (500) included, and never quotes their message or the contents' keys", () => {
    const bug = new AdmissionError("token abc leaked in a stack", { code: "ERR_INTERNAL" });
    const mismatch = createRefusal(
      "ERR_CONTENTS_MISMATCH",
      'container "app": GMSA credspec contents differ (differing keys: Secret.Key)',
      'container "app"',
      "webapp1",
    );
    const outcome = applyEnforcement({ allowed: false, errors: [bug, mismatch] }, ["webapp1"], "warn");
    expect(outcome.allowed).toBe(true);
    const text = JSON.stringify(outcome);
    expect(text).toContain("500 ERR_INTERNAL; ERR_CONTENTS_MISMATCH at container");
    expect(text).not.toContain("abc");
    expect(text).not.toContain("Secret.Key");
  });

  it("caps every annotation value", () => {
    const many = Array.from({ length: 200 }, (_, i) => `credspec-with-a-long-name-${i}`);
    const outcome = applyEnforcement({ allowed: true }, many, "deny");
    expect(outcome.auditAnnotations?.["credspecs"]?.length).toBe(MAX_AUDIT_VALUE_LENGTH);
  });
});
