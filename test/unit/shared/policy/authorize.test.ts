import { describe, expect, it } from "vitest";
import { AdmissionError, CredSpecNotFoundError, KubeApiError } from "../../../../shared/errors.ts";
import { annotationKeys } from "../../../../shared/policy/annotations.ts";
import { decideAuthorize, planAuthorize, type AuthorizeFacts } from "../../../../shared/policy/authorize.ts";
import type { Fact } from "../../../../shared/policy/facts.ts";
import { isNewEphemeralContainer } from "../../../../shared/policy/walk.ts";
import { buildPod, inlined, PLACES, podWithGmsaAt, WEBAPP1_CREDSPEC, WEBAPP2_CREDSPEC } from "../../../support/pods.ts";

const options = { maxCredSpecNames: 8 };
const expanded1 = { gmsaCredentialSpecName: "webapp1", gmsaCredentialSpec: inlined(WEBAPP1_CREDSPEC) };

function fact<T>(value: T | AdmissionError): Fact<T> {
  return value instanceof AdmissionError ? { ok: false, error: value } : { ok: true, value };
}

function authorizeFacts(credspecs: Record<string, unknown>, allowed: Record<string, boolean | AdmissionError>): AuthorizeFacts {
  return {
    credspecs: new Map(Object.entries(credspecs).map(([k, v]) => [k, fact(v)])),
    access: new Map(
      Object.entries(allowed).map(([k, v]) => [
        k,
        fact<{ allowed: boolean; reason: string }>(typeof v === "boolean" ? { allowed: v, reason: v ? "" : "no RBAC rule" } : v),
      ]),
    ),
    serviceAccount: "sa1",
    namespace: "ns1",
  };
}

describe("planAuthorize", () => {
  it.each(PLACES)("plans the credspec named and inlined on the $kind", ({ kind }) => {
    const plan = planAuthorize(podWithGmsaAt(kind, expanded1), options);
    expect(plan.errors).toEqual([]);
    expect(plan.names).toEqual(new Set(["webapp1"]));
  });

  it.each(PLACES)("refuses a name without contents on the $kind (422): expand did not run", ({ kind, label }) => {
    const plan = planAuthorize(podWithGmsaAt(kind, { gmsaCredentialSpecName: "webapp1" }), options);
    expect(plan.names.size).toBe(0);
    expect(plan.errors.map((e) => [e.code, e.status])).toEqual([["ERR_NAME_WITHOUT_CONTENTS", 422]]);
    expect(plan.errors[0]?.message).toContain(label);
  });

  it("reports every offending place, not just the first", () => {
    const pod = buildPod({
      windowsOptions: { gmsaCredentialSpec: "{}" },
      containers: [{ name: "app", windowsOptions: { gmsaCredentialSpecName: "Bad_Name", gmsaCredentialSpec: "{}" } }],
      initContainers: [{ name: "setup", windowsOptions: { gmsaCredentialSpecName: "webapp1", gmsaCredentialSpec: "not json" } }],
    });
    const plan = planAuthorize(pod, options);
    expect(plan.errors.map((e) => [e.code, e.where?.place])).toEqual([
      ["ERR_INVALID_CREDSPEC_NAME", 'container "app"'],
      ["ERR_CONTENTS_WITHOUT_NAME", "pod"],
      ["ERR_CONTENTS_NOT_JSON", 'init container "setup"'],
    ]);
  });

  it("judges alpha annotations: contents without a name and names of absent containers (422)", () => {
    const pod = buildPod({
      annotations: { [annotationKeys().contentsKey]: "{}", [annotationKeys("ghost").nameKey]: "webapp1" },
    });
    expect(planAuthorize(pod, options).errors.map((e) => e.code).sort()).toEqual(
      ["ERR_CONTENTS_WITHOUT_NAME", "ERR_NAME_WITHOUT_CONTENTS", "ERR_UNKNOWN_CONTAINER"].sort(),
    );
  });

  it("with targets, judges only the new ephemeral containers", () => {
    const oldPod = buildPod({ windowsOptions: { gmsaCredentialSpecName: "old-unexpanded" }, ephemeralContainers: [] });
    const newPod = buildPod({
      windowsOptions: { gmsaCredentialSpecName: "old-unexpanded" },
      ephemeralContainers: [{ name: "debugger", windowsOptions: expanded1 }],
    });
    const plan = planAuthorize(newPod, { ...options, targets: isNewEphemeralContainer(oldPod) });
    expect(plan.errors).toEqual([]);
    expect(plan.names).toEqual(new Set(["webapp1"]));
    expect(plan.refs.map((r) => r.label)).toEqual(['ephemeral container "debugger"']);
  });
});

describe("decideAuthorize", () => {
  it.each(PLACES)("allows the $kind whose service account may use the credspec and whose contents match", ({ kind }) => {
    const plan = planAuthorize(podWithGmsaAt(kind, expanded1), options);
    expect(decideAuthorize(plan, authorizeFacts({ webapp1: WEBAPP1_CREDSPEC }, { webapp1: true }))).toEqual([]);
  });

  it.each(PLACES)("denies the $kind whose service account may not use the credspec (403), with the reason", ({ kind, label }) => {
    const plan = planAuthorize(podWithGmsaAt(kind, expanded1), options);
    const errors = decideAuthorize(plan, authorizeFacts({ webapp1: WEBAPP1_CREDSPEC }, { webapp1: false }));
    expect(errors.map((e) => [e.code, e.status])).toEqual([["ERR_CREDSPEC_NOT_ALLOWED", 403]]);
    expect(errors[0]?.message).toContain(label);
    expect(errors[0]?.message).toContain('"webapp1"');
    expect(errors[0]?.message).toContain('"sa1"');
    expect(errors[0]?.message).toContain("no RBAC rule");
  });

  it.each(PLACES)("denies contents on the $kind that differ from the credspec (422), naming keys only", ({ kind, label }) => {
    const plan = planAuthorize(podWithGmsaAt(kind, { gmsaCredentialSpecName: "webapp1", gmsaCredentialSpec: inlined(WEBAPP2_CREDSPEC) }), options);
    const errors = decideAuthorize(plan, authorizeFacts({ webapp1: WEBAPP1_CREDSPEC }, { webapp1: true }));
    expect(errors.map((e) => [e.code, e.status])).toEqual([["ERR_CONTENTS_MISMATCH", 422]]);
    expect(errors[0]?.message).toContain(label);
    expect(errors[0]?.message).toContain('"webapp1"');
    expect(errors[0]?.message).toContain("DomainJoinConfig.MachineAccountName");
    expect(errors[0]?.message).not.toContain("WebApp2");
    expect(errors[0]?.message).not.toContain("S-1-5-21");
  });

  it.each(PLACES)("denies an unknown credspec on the $kind with the loader's code (422)", ({ kind, label }) => {
    const plan = planAuthorize(podWithGmsaAt(kind, expanded1), options);
    const errors = decideAuthorize(plan, authorizeFacts({ webapp1: new CredSpecNotFoundError("not found") }, { webapp1: true }));
    expect(errors.map((e) => [e.code, e.status])).toEqual([["ERR_CREDSPEC_NOT_FOUND", 422]]);
    expect(errors[0]?.message).toContain(label);
  });

  it.each(PLACES)("denies the $kind whose service account may not use the credspec without comparing its contents (403)", ({ kind }) => {
    const plan = planAuthorize(podWithGmsaAt(kind, { gmsaCredentialSpecName: "webapp1", gmsaCredentialSpec: inlined(WEBAPP2_CREDSPEC) }), options);
    for (const access of [false, new KubeApiError("review failed")]) {
      const errors = decideAuthorize(plan, authorizeFacts({ webapp1: WEBAPP1_CREDSPEC }, { webapp1: access }));
      expect(errors.map((e) => e.code)).toEqual([access === false ? "ERR_CREDSPEC_NOT_ALLOWED" : "ERR_KUBE_API"]);
      expect(errors.map((e) => e.message).join()).not.toContain("MachineAccountName");
      expect(errors.map((e) => e.message).join()).not.toContain("differ");
    }
  });

  it("denies a requesting user who may not use the credspec without comparing its contents (403)", () => {
    const plan = planAuthorize(podWithGmsaAt("container", { gmsaCredentialSpecName: "webapp1", gmsaCredentialSpec: inlined(WEBAPP2_CREDSPEC) }), options);
    const facts = authorizeFacts({ webapp1: WEBAPP1_CREDSPEC }, { webapp1: true });
    const denied = decideAuthorize(plan, { ...facts, user: { username: "alice", access: authorizeFacts({}, { webapp1: false }).access } });
    expect(denied.map((e) => e.code)).toEqual(["ERR_CREDSPEC_NOT_ALLOWED"]);
    expect(denied[0]?.message).toContain('user "alice"');
    expect(denied.map((e) => e.message).join()).not.toContain("MachineAccountName");
    const allowed = decideAuthorize(plan, { ...facts, user: { username: "alice", access: authorizeFacts({}, { webapp1: true }).access } });
    expect(allowed.map((e) => e.code)).toEqual(["ERR_CONTENTS_MISMATCH"]);
  });

  it("refuses contents whose repeated key would hide another gMSA behind an equal parse (422)", () => {
    const real = inlined(WEBAPP1_CREDSPEC);
    const smuggled = `{"ActiveDirectoryConfig":{"GroupManagedServiceAccounts":[{"Name":"Other","Scope":"x"}]},${real.slice(1)}`;
    expect(JSON.parse(smuggled)).toEqual(WEBAPP1_CREDSPEC);
    const plan = planAuthorize(podWithGmsaAt("pod", { gmsaCredentialSpecName: "webapp1", gmsaCredentialSpec: smuggled }), options);
    expect(plan.errors.map((e) => [e.code, e.status, e.where?.place])).toEqual([["ERR_DUPLICATE_CREDSPEC_KEY", 422, "pod"]]);
    expect(plan.errors[0]?.message).toContain('"ActiveDirectoryConfig"');
    expect(plan.names.size).toBe(0);
  });

  it("refuses an alpha contents annotation that repeats a key (422)", () => {
    const keys = annotationKeys();
    const pod = buildPod({ annotations: { [keys.nameKey]: "webapp1", [keys.contentsKey]: '{"a":1,"a":1}' }, windowsOptions: expanded1 });
    const errors = planAuthorize(pod, options).errors;
    expect(errors.map((e) => [e.code, e.where?.place])).toContainEqual(["ERR_DUPLICATE_CREDSPEC_KEY", `annotation "${keys.nameKey}"`]);
  });

  it("denies with both the access refusal and the missing credspec", () => {
    const plan = planAuthorize(podWithGmsaAt("pod", expanded1), options);
    const errors = decideAuthorize(plan, authorizeFacts({ webapp1: new CredSpecNotFoundError("not found") }, { webapp1: false }));
    expect(errors.map((e) => e.status)).toEqual([403, 422]);
  });

  it("names every place sharing a credspec in one refusal", () => {
    const pod = buildPod({
      windowsOptions: expanded1,
      containers: [{ name: "app", windowsOptions: expanded1 }],
      initContainers: [{ name: "setup", windowsOptions: expanded1 }],
    });
    const errors = decideAuthorize(planAuthorize(pod, options), authorizeFacts({ webapp1: WEBAPP1_CREDSPEC }, { webapp1: false }));
    expect(errors).toHaveLength(1);
    expect(errors[0]?.where?.place).toBe('pod, container "app", init container "setup"');
  });

  it("keeps an API failure a 500", () => {
    const plan = planAuthorize(podWithGmsaAt("pod", expanded1), options);
    const errors = decideAuthorize(plan, authorizeFacts({ webapp1: WEBAPP1_CREDSPEC }, { webapp1: new KubeApiError("503") }));
    expect(errors.map((e) => [e.code, e.status])).toEqual([["ERR_KUBE_API", 500]]);
  });

  it("throws when a planned fact was not loaded (a bug, turned into a 500 by the handler)", () => {
    const plan = planAuthorize(podWithGmsaAt("pod", expanded1), options);
    expect(() => decideAuthorize(plan, authorizeFacts({}, {}))).toThrow(/not loaded/);
  });

  it("keeps a long authorizer reason short", () => {
    const plan = planAuthorize(podWithGmsaAt("pod", expanded1), options);
    const facts = authorizeFacts({ webapp1: WEBAPP1_CREDSPEC }, {});
    const access = new Map([["webapp1", fact({ allowed: false, reason: "r".repeat(5000) })]]);
    const [error] = decideAuthorize(plan, { ...facts, access });
    expect(error!.message.length).toBeLessThan(400);
  });
});
