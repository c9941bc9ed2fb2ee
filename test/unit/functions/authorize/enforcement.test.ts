import { describe, expect, it } from "vitest";
import { readConfig } from "../../../../shared/config/index.ts";
import type { EnforcementMode } from "../../../../shared/policy/facts.ts";
import { createTestApp, postReview } from "../../../support/app.ts";
import { createFakeGmsaClient } from "../../../support/fake-gmsa-client.ts";
import { inlined, podWithGmsaAt, WEBAPP1_CREDSPEC } from "../../../support/pods.ts";
import { buildReview } from "../../../support/reviews.ts";

describe("authorize with ENFORCEMENT", () => {
  const pod = podWithGmsaAt("container", {
    gmsaCredentialSpecName: "webapp1",
    gmsaCredentialSpec: inlined(WEBAPP1_CREDSPEC),
  });
  const send = async (enforcement: EnforcementMode, fn: "authorize" | "expand" = "authorize", fail = false) => {
    const gmsa = createFakeGmsaClient({
      credspecs: { webapp1: WEBAPP1_CREDSPEC },
      ...(fail ? { fail: () => new Error("API server down") } : {}),
    });
    const { app } = createTestApp({ gmsa, settings: { enforcement } });
    return (
      await postReview(
        app,
        fn,
        buildReview(fn === "expand" ? podWithGmsaAt("container", { gmsaCredentialSpecName: "webapp1" }) : pod),
      )
    ).response;
  };

  it.each(["deny", "warn"] as const)(
    "%s: a pod authorize would deny (403) carries the audit annotations",
    async (mode) => {
      const response = await send(mode);
      expect(response.allowed).toBe(mode === "warn");
      expect(response.status?.code).toBe(mode === "deny" ? 403 : undefined);
      expect(response.auditAnnotations).toMatchObject({
        decision: mode === "deny" ? "denied" : "would-deny",
        credspecs: "webapp1",
      });
      if (mode === "warn") expect(response.warnings?.[0]).toContain("ERR_CREDSPEC_NOT_ALLOWED");
    },
  );

  it("unset, it denies: a deployment that names no ENFORCEMENT enforces", async () => {
    const { enforcement } = readConfig({ CALLER_AUTH: "none", HOST: "127.0.0.1" }, "node");
    const response = await send(enforcement);
    expect(response.allowed).toBe(false);
    expect(response.status?.code).toBe(403);
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
