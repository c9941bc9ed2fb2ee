import { describe, expect, it } from "vitest";
import { CredSpecNotFoundError, type AdmissionError } from "../../../../shared/errors.ts";
import { annotationKeys } from "../../../../shared/policy/annotations.ts";
import { expandPod, MAX_CREDSPEC_CONTENTS_BYTES, planExpand } from "../../../../shared/policy/expand.ts";
import type { CredSpecFacts, Fact } from "../../../../shared/policy/facts.ts";
import { isNewEphemeralContainer } from "../../../../shared/policy/walk.ts";
import { buildPod, inlined, PLACES, podWithGmsaAt, WEBAPP1_CREDSPEC, WEBAPP2_CREDSPEC, windowsOptionsAt } from "../../../support/pods.ts";

const options = { maxCredSpecNames: 8 };

function facts(entries: Record<string, unknown>): CredSpecFacts {
  return new Map(
    Object.entries(entries).map(([name, value]): [string, Fact<unknown>] =>
      value instanceof Error ? [name, { ok: false, error: value as AdmissionError }] : [name, { ok: true, value }],
    ),
  );
}

describe("planExpand", () => {
  it.each(PLACES)("loads the credspec named on the $kind", ({ kind }) => {
    expect(planExpand(podWithGmsaAt(kind, { gmsaCredentialSpecName: "webapp1" }), options)).toEqual({ names: new Set(["webapp1"]), errors: [] });
  });

  it.each(PLACES)("loads nothing when the $kind already has contents", ({ kind }) => {
    const pod = podWithGmsaAt(kind, { gmsaCredentialSpecName: "webapp1", gmsaCredentialSpec: "{}" });
    expect(planExpand(pod, options)).toEqual({ names: new Set(), errors: [] });
  });

  it.each(PLACES)("refuses an invalid name on the $kind (422) and loads nothing", ({ kind, label }) => {
    const plan = planExpand(podWithGmsaAt(kind, { gmsaCredentialSpecName: "WebApp1" }), options);
    expect(plan.names.size).toBe(0);
    expect(plan.errors.map((e) => [e.code, e.status])).toEqual([["ERR_INVALID_CREDSPEC_NAME", 422]]);
    expect(plan.errors[0]?.message).toContain(label);
  });

  it("loads each credspec once however many places name it", () => {
    const containers = Array.from({ length: 10 }, (_, i) => ({ name: `c${i}`, windowsOptions: { gmsaCredentialSpecName: "webapp1" } }));
    expect(planExpand(buildPod({ containers }), options).names).toEqual(new Set(["webapp1"]));
  });

  it("refuses more distinct credspecs than the limit (422) and loads nothing", () => {
    const containers = Array.from({ length: 3 }, (_, i) => ({ name: `c${i}`, windowsOptions: { gmsaCredentialSpecName: `spec${i}` } }));
    const plan = planExpand(buildPod({ containers }), { maxCredSpecNames: 2 });
    expect(plan.names.size).toBe(0);
    expect(plan.errors.map((e) => [e.code, e.status])).toEqual([["ERR_TOO_MANY_REFERENCES", 422]]);
  });

  it("loads credspecs named by alpha annotations, and refuses conflicts and unknown containers (422)", () => {
    const keys = annotationKeys("app");
    expect(planExpand(buildPod({ annotations: { [keys.nameKey]: "webapp1" } }), options).names).toEqual(new Set(["webapp1"]));
    const conflict = podWithGmsaAt("container", { gmsaCredentialSpecName: "webapp1" }, { annotations: { [keys.nameKey]: "webapp2" } });
    expect(planExpand(conflict, options).errors.map((e) => e.code)).toEqual(["ERR_ANNOTATION_CONFLICT"]);
    const unknown = buildPod({ annotations: { [annotationKeys("ghost").nameKey]: "webapp1" } });
    expect(planExpand(unknown, options).errors.map((e) => e.code)).toEqual(["ERR_UNKNOWN_CONTAINER"]);
  });

  it("with targets, plans only the targeted places and ignores annotations", () => {
    const oldPod = buildPod({ windowsOptions: { gmsaCredentialSpecName: "webapp1" }, ephemeralContainers: [] });
    const newPod = buildPod({
      windowsOptions: { gmsaCredentialSpecName: "webapp1" },
      annotations: { [annotationKeys("ghost").nameKey]: "x" },
      ephemeralContainers: [{ name: "debugger", windowsOptions: { gmsaCredentialSpecName: "webapp2" } }],
    });
    expect(planExpand(newPod, { ...options, targets: isNewEphemeralContainer(oldPod) })).toEqual({ names: new Set(["webapp2"]), errors: [] });
  });
});

describe("expandPod", () => {
  it.each(PLACES)("inlines the credspec named on the $kind as JSON", ({ kind }) => {
    const pod = podWithGmsaAt(kind, { gmsaCredentialSpecName: "webapp1" });
    const result = expandPod(pod, facts({ webapp1: WEBAPP1_CREDSPEC }), options);
    expect(result.errors).toEqual([]);
    expect(windowsOptionsAt(result.pod, kind)).toEqual({ gmsaCredentialSpecName: "webapp1", gmsaCredentialSpec: inlined(WEBAPP1_CREDSPEC) });
    expect(windowsOptionsAt(pod, kind)?.gmsaCredentialSpec).toBeUndefined();
  });

  it.each(PLACES)("never overwrites contents already on the $kind", ({ kind }) => {
    const pod = podWithGmsaAt(kind, { gmsaCredentialSpecName: "webapp1", gmsaCredentialSpec: inlined(WEBAPP2_CREDSPEC) });
    expect(expandPod(pod, facts({}), options)).toEqual({ pod, errors: [] });
  });

  it.each(PLACES)("refuses an unknown credspec on the $kind, keeping the loader's code (422)", ({ kind, label }) => {
    const pod = podWithGmsaAt(kind, { gmsaCredentialSpecName: "missing" });
    const { errors } = expandPod(pod, facts({ missing: new CredSpecNotFoundError('GMSACredentialSpec "missing" not found') }), options);
    expect(errors.map((e) => [e.code, e.status])).toEqual([["ERR_CREDSPEC_NOT_FOUND", 422]]);
    expect(errors[0]?.message).toContain(label);
    expect(errors[0]?.message).toContain('"missing"');
  });

  it.each(PLACES)("fails closed (500) when the credspec named on the $kind is missing from the facts, rather than allowing it unexpanded", ({ kind, label }) => {
    const { errors } = expandPod(podWithGmsaAt(kind, { gmsaCredentialSpecName: "webapp1" }), facts({}), options);
    expect(errors.map((e) => [e.code, e.status, e.where])).toEqual([["ERR_INTERNAL", 500, { place: label, credSpecName: "webapp1" }]]);
  });

  it.each(PLACES)("refuses contents over 65,536 bytes named on the $kind (422), naming place and credspec", ({ kind, label }) => {
    const big = { blob: "x".repeat(MAX_CREDSPEC_CONTENTS_BYTES) };
    const { errors } = expandPod(podWithGmsaAt(kind, { gmsaCredentialSpecName: "big" }), facts({ big }), options);
    expect(errors.map((e) => [e.code, e.status])).toEqual([["ERR_CONTENTS_TOO_LARGE", 422]]);
    expect(errors[0]?.message).toContain(label);
    expect(errors[0]?.message).toContain('"big"');
    expect(errors[0]?.message).not.toContain("xxxx");
  });

  it("names every place sharing a credspec that is too large, in one refusal", () => {
    const big = { blob: "x".repeat(MAX_CREDSPEC_CONTENTS_BYTES) };
    const pod = buildPod({ windowsOptions: { gmsaCredentialSpecName: "big" }, containers: [{ name: "app", windowsOptions: { gmsaCredentialSpecName: "big" } }] });
    const { errors } = expandPod(pod, facts({ big }), options);
    expect(errors.map((e) => e.where)).toEqual([{ place: 'pod, container "app"', credSpecName: "big" }]);
  });

  it("accepts contents of exactly 65,536 bytes of UTF-8 and refuses one byte more", () => {
    const exactly = { b: "é".repeat((MAX_CREDSPEC_CONTENTS_BYTES - '{"b":""}'.length) / 2) };
    expect(new TextEncoder().encode(JSON.stringify(exactly)).length).toBe(MAX_CREDSPEC_CONTENTS_BYTES);
    const pod = podWithGmsaAt("pod", { gmsaCredentialSpecName: "big" });
    expect(expandPod(pod, facts({ big: exactly }), options).errors).toEqual([]);
    expect(expandPod(pod, facts({ big: { ...exactly, c: 1 } }), options).errors.map((e) => e.code)).toEqual(["ERR_CONTENTS_TOO_LARGE"]);
  });

  it("gives containers that name their own credspec their own contents", () => {
    const pod = buildPod({
      windowsOptions: { gmsaCredentialSpecName: "webapp1" },
      containers: [{ name: "app" }, { name: "other", windowsOptions: { gmsaCredentialSpecName: "webapp2" } }],
    });
    const { pod: out } = expandPod(pod, facts({ webapp1: WEBAPP1_CREDSPEC, webapp2: WEBAPP2_CREDSPEC }), options);
    expect(out.spec?.securityContext?.windowsOptions?.gmsaCredentialSpec).toBe(inlined(WEBAPP1_CREDSPEC));
    expect(out.spec?.containers?.[0]?.securityContext).toBeUndefined();
    expect(out.spec?.containers?.[1]?.securityContext?.windowsOptions?.gmsaCredentialSpec).toBe(inlined(WEBAPP2_CREDSPEC));
  });

  it.each([
    { kind: "pod" as const, keys: annotationKeys() },
    { kind: "container" as const, keys: annotationKeys("app") },
    { kind: "init container" as const, keys: annotationKeys("setup") },
  ])("fills the $kind alpha contents annotation and sets the fields", ({ kind, keys }) => {
    const pod = buildPod({ annotations: { [keys.nameKey]: "webapp1" } });
    const { pod: out, errors } = expandPod(pod, facts({ webapp1: WEBAPP1_CREDSPEC }), options);
    expect(errors).toEqual([]);
    expect(out.metadata?.annotations).toEqual({ [keys.nameKey]: "webapp1", [keys.contentsKey]: inlined(WEBAPP1_CREDSPEC) });
    expect(windowsOptionsAt(out, kind)).toEqual({ gmsaCredentialSpecName: "webapp1", gmsaCredentialSpec: inlined(WEBAPP1_CREDSPEC) });
  });

  it("never copies a contents annotation that repeats a key into the field: the field gets the credspec, authorize refuses the annotation", () => {
    const keys = annotationKeys();
    const repeated = `{"CmsPlugins":[],${inlined(WEBAPP1_CREDSPEC).slice(1)}`;
    const pod = buildPod({ annotations: { [keys.nameKey]: "webapp1", [keys.contentsKey]: repeated } });
    const { pod: out, errors } = expandPod(pod, facts({ webapp1: WEBAPP1_CREDSPEC }), options);
    expect(errors).toEqual([]);
    expect(out.metadata?.annotations?.[keys.contentsKey]).toBe(repeated);
    expect(windowsOptionsAt(out, "pod")).toEqual({ gmsaCredentialSpecName: "webapp1", gmsaCredentialSpec: inlined(WEBAPP1_CREDSPEC) });
  });

  describe("hostname", () => {
    it.each(PLACES)("sets the given hostname on a pod with a GMSA on the $kind", ({ kind }) => {
      const pod = podWithGmsaAt(kind, { gmsaCredentialSpecName: "webapp1" });
      expect(expandPod(pod, facts({ webapp1: WEBAPP1_CREDSPEC }), { ...options, hostname: "abcdefghijklmno" }).pod.spec?.hostname).toBe("abcdefghijklmno");
    });

    it("keeps a preset hostname", () => {
      const pod = podWithGmsaAt("pod", { gmsaCredentialSpecName: "webapp1" }, { hostname: "preset" });
      expect(expandPod(pod, facts({ webapp1: WEBAPP1_CREDSPEC }), { ...options, hostname: "abcdefghijklmno" }).pod.spec?.hostname).toBe("preset");
    });

    it("leaves pods without a GMSA alone", () => {
      expect(expandPod(buildPod(), facts({}), { ...options, hostname: "abcdefghijklmno" }).pod.spec?.hostname).toBeUndefined();
    });
  });
});
