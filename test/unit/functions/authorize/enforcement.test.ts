import { describe, expect, it } from "vitest";
import { buildAdmissionResponse } from "../../../../shared/admission/response.ts";
import { ContentsMismatchError, CredSpecNotAllowedError, InternalError } from "../../../../shared/errors.ts";
import type { EnforcementMode } from "../../../../shared/config/index.ts";
import { applyEnforcement, AUDIT_KEYS, MAX_AUDIT_VALUE_LENGTH } from "../../../../functions/authorize/enforcement.ts";
import { createTestApp, postReview } from "../../../support/app.ts";
import { createFakeGmsaClient } from "../../../support/fake-gmsa-client.ts";
import { inlined, podWithGmsaAt, WEBAPP1_CREDSPEC } from "../../../support/pods.ts";
import { buildReview } from "../../../support/reviews.ts";

const notAllowed = new CredSpecNotAllowedError('container "app": service account "sa1" in namespace "ns1" is not allowed to use GMSACredentialSpec "webapp1"', {
  where: { place: 'container "app"', credSpecName: "webapp1" },
});
const QUALIFIED_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;

describe("applyEnforcement", () => {
  it("annotates every decision with the decision and the credspec names, keys valid qualified names", () => {
    const allowed = applyEnforcement({ allowed: true }, ["webapp2", "webapp1"], "deny");
    expect(allowed.auditAnnotations).toEqual({ decision: "allowed", credspecs: "webapp1,webapp2" });
    const denied = applyEnforcement({ allowed: false, errors: [notAllowed] }, [], "deny");
    expect(denied).toMatchObject({ allowed: false, auditAnnotations: { decision: "denied", credspecs: "webapp1", codes: "ERR_CREDSPEC_NOT_ALLOWED" } });
    for (const key of Object.values(AUDIT_KEYS)) expect(key).toMatch(QUALIFIED_NAME);
  });

  it("warn: allows what it would deny, with a warning and the would-deny annotation naming codes and places", () => {
    const outcome = applyEnforcement({ allowed: false, errors: [notAllowed], warnings: ["runAsUserName"] }, ["webapp1"], "warn");
    expect(outcome.allowed).toBe(true);
    const wouldDeny = '403 ERR_CREDSPEC_NOT_ALLOWED at container "app" (credspec "webapp1")';
    expect(outcome.warnings).toEqual([`ENFORCEMENT=warn: gmsa-webhooks would deny this request: ${wouldDeny}`, "runAsUserName"]);
    expect(outcome.auditAnnotations).toEqual({ decision: "would-deny", credspecs: "webapp1", codes: "ERR_CREDSPEC_NOT_ALLOWED", "would-deny": wouldDeny });
  });

  it("warn: never blocks, our own failures (500) included, and never quotes their message or the contents' keys", () => {
    const bug = new InternalError("token abc leaked in a stack");
    const mismatch = new ContentsMismatchError('container "app": GMSA credspec contents differ (differing keys: Secret.Key)', {
      where: { place: 'container "app"', credSpecName: "webapp1" },
    });
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

  it("reaches the AdmissionReview response as auditAnnotations", () => {
    const reply = buildAdmissionResponse("admission.k8s.io/v1", "u", applyEnforcement({ allowed: false, errors: [notAllowed] }, [], "warn"));
    expect(reply.response).toMatchObject({ allowed: true, auditAnnotations: { decision: "would-deny" } });
    expect(reply.response.status).toBeUndefined();
  });
});

describe("authorize with ENFORCEMENT", () => {
  const pod = podWithGmsaAt("container", { gmsaCredentialSpecName: "webapp1", gmsaCredentialSpec: inlined(WEBAPP1_CREDSPEC) });
  const send = async (enforcement: EnforcementMode, fn: "authorize" | "expand" = "authorize", fail = false) => {
    const gmsa = createFakeGmsaClient({
      credspecs: { webapp1: WEBAPP1_CREDSPEC },
      ...(fail ? { fail: () => new Error("API server down") } : {}),
    });
    const { app } = createTestApp({ gmsa, settings: { enforcement } });
    return (await postReview(app, fn, buildReview(fn === "expand" ? podWithGmsaAt("container", { gmsaCredentialSpecName: "webapp1" }) : pod))).response;
  };

  it.each(["deny", "warn"] as const)("%s: a pod authorize would deny (403) carries the audit annotations", async (mode) => {
    const response = await send(mode);
    expect(response.allowed).toBe(mode === "warn");
    expect(response.status?.code).toBe(mode === "deny" ? 403 : undefined);
    expect(response.auditAnnotations).toMatchObject({ decision: mode === "deny" ? "denied" : "would-deny", credspecs: "webapp1" });
    if (mode === "warn") expect(response.warnings?.[0]).toContain("ERR_CREDSPEC_NOT_ALLOWED");
  });

  it("warn: allows a review that fails closed in deny mode (500)", async () => {
    expect((await send("deny", "authorize", true)).status?.code).toBe(500);
    const response = await send("warn", "authorize", true);
    expect(response.allowed).toBe(true);
    expect(response.auditAnnotations?.["would-deny"]).toMatch(/^500 /);
  });

  it("expand is unaffected: denies in warn mode too, without audit annotations", async () => {
    const response = await send("warn", "expand", true);
    expect(response.allowed).toBe(false);
    expect(response.auditAnnotations).toBeUndefined();
  });
});
