import { describe, expect, it } from "vitest";
import { AdmissionError } from "../../../../shared/errors.ts";
import type { Decision, Pod } from "../../../../shared/admission/review.ts";
import type { ReviewFacts } from "../../../../shared/policy/facts.ts";
import { annotationKeys } from "../../../../shared/policy/pod-gmsa.ts";
import {
  createRandomHostname,
  decideExpand,
  MAX_CREDSPEC_CONTENTS_BYTES,
  MAX_INLINED_CONTENTS_PER_POD,
  planExpand,
} from "../../../../shared/policy/expand.ts";
import {
  buildPod,
  inlined,
  PLACES,
  podWithGmsaAt,
  WEBAPP1_CREDSPEC,
  WEBAPP2_CREDSPEC,
  windowsOptionsAt,
} from "../../../support/pods.ts";
import { CONNECT_EXEC, create, expectDenied, load, patched, update, type World } from "./review-facts.ts";

const cluster: World = { credspecs: { webapp1: WEBAPP1_CREDSPEC, webapp2: WEBAPP2_CREDSPEC } };
const expanded1 = { gmsaCredentialSpecName: "webapp1", gmsaCredentialSpec: inlined(WEBAPP1_CREDSPEC) };

/** Plans, loads exactly what the plan names from `world`, and decides. */
function expand(review: ReviewFacts, world: World = cluster, randomHostname = false): Decision {
  const plan = planExpand(review, { randomHostname });
  return decideExpand(plan, load(plan.load, world));
}

/** The pod expand makes of a CREATE of `pod`. */
function expanded(pod: Pod, world: World = cluster, randomHostname = false): Pod {
  return patched(pod, expand(create(pod), world, randomHostname));
}

describe("expand: pod creates", () => {
  it.each(PLACES)("inlines the credspec named on the $kind as JSON, loading it once", ({ kind }) => {
    const pod = podWithGmsaAt(kind, { gmsaCredentialSpecName: "webapp1", runAsUserName: "NT AUTHORITY\\SYSTEM" });
    expect(planExpand(create(pod), { randomHostname: false }).load).toEqual({
      credspecs: new Set(["webapp1"]),
      access: [],
      randomBytes: 0,
    });
    const out = expanded(pod);
    expect(windowsOptionsAt(out, kind)).toEqual({ ...expanded1, runAsUserName: "NT AUTHORITY\\SYSTEM" });
    expect({ ...out, spec: { ...out.spec, ...pod.spec } }).toEqual(pod);
  });

  it.each(PLACES)("never overwrites contents already on the $kind, and loads nothing for them", ({ kind }) => {
    const pod = podWithGmsaAt(kind, {
      gmsaCredentialSpecName: "webapp1",
      gmsaCredentialSpec: inlined(WEBAPP2_CREDSPEC),
    });
    expect(planExpand(create(pod), { randomHostname: false }).load.credspecs).toEqual(new Set());
    expect(expand(create(pod), {})).toEqual({ allowed: true, patch: [] });
  });

  it.each(PLACES)(
    "refuses an unknown credspec on the $kind with the loader's code (422), naming place and credspec",
    ({ kind, label }) => {
      const decision = expand(create(podWithGmsaAt(kind, { gmsaCredentialSpecName: "missing" })), {
        credspecs: {
          missing: new AdmissionError(`GMSACredentialSpec "missing" not found`, { code: "ERR_CREDSPEC_NOT_FOUND" }),
        },
      });
      expectDenied(decision, [["ERR_CREDSPEC_NOT_FOUND", 422]], label, '"missing"');
    },
  );

  it.each(PLACES)("refuses an invalid name on the $kind (422) without loading anything", ({ kind, label }) => {
    const plan = planExpand(create(podWithGmsaAt(kind, { gmsaCredentialSpecName: "WebApp1" })), {
      randomHostname: false,
    });
    expect(plan.load.credspecs).toEqual(new Set());
    expectDenied(decideExpand(plan, load(plan.load, {})), [["ERR_INVALID_CREDSPEC_NAME", 422]], label, '"WebApp1"');
  });

  it.each(PLACES)(
    "refuses contents over 65,536 bytes named on the $kind (422), naming place and credspec, never the contents",
    ({ kind, label }) => {
      const decision = expand(create(podWithGmsaAt(kind, { gmsaCredentialSpecName: "big" })), {
        credspecs: { big: { blob: "x".repeat(MAX_CREDSPEC_CONTENTS_BYTES) } },
      });
      expectDenied(decision, [["ERR_CONTENTS_TOO_LARGE", 422]], label, '"big"');
      expect(JSON.stringify(decision)).not.toContain("xxxx");
    },
  );

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

  it.each(PLACES)("sets a random hostname from the random bytes on a pod with a GMSA on the $kind", ({ kind }) => {
    const pod = podWithGmsaAt(kind, { gmsaCredentialSpecName: "webapp1" });
    const bytes = Uint8Array.from({ length: 15 }, (_, i) => i * 11);
    expect(planExpand(create(pod), { randomHostname: true }).load.randomBytes).toBe(15);
    expect(expanded(pod, { ...cluster, randomBytes: bytes }, true).spec?.hostname).toBe(createRandomHostname(bytes));
  });

  it("asks for no random bytes when RANDOM_HOSTNAME is off, the hostname is preset or the pod has no GMSA", () => {
    const gmsa = podWithGmsaAt("pod", { gmsaCredentialSpecName: "webapp1" });
    expect(planExpand(create(gmsa), { randomHostname: false }).load.randomBytes).toBe(0);
    expect(
      planExpand(create(podWithGmsaAt("pod", { gmsaCredentialSpecName: "webapp1" }, { hostname: "preset" })), {
        randomHostname: true,
      }).load.randomBytes,
    ).toBe(0);
    expect(planExpand(create(buildPod()), { randomHostname: true }).load.randomBytes).toBe(0);
    expect(
      expanded(podWithGmsaAt("pod", { gmsaCredentialSpecName: "webapp1" }, { hostname: "preset" }), cluster, true).spec
        ?.hostname,
    ).toBe("preset");
  });

  it("loads a credspec named in ten places once, and inlines it in each", () => {
    const containers = Array.from({ length: 10 }, (_, i) => ({
      name: `c${i}`,
      windowsOptions: { gmsaCredentialSpecName: "webapp1" },
    }));
    const pod = buildPod({ containers });
    expect(planExpand(create(pod), { randomHostname: false }).load.credspecs).toEqual(new Set(["webapp1"]));
    expect(expanded(pod).spec?.containers?.map((c) => c.securityContext?.windowsOptions)).toEqual(
      Array(10).fill(expanded1),
    );
  });

  it("gives a container naming its own credspec its own contents, and one that names none nothing (it inherits the pod's)", () => {
    const pod = buildPod({
      windowsOptions: { gmsaCredentialSpecName: "webapp1" },
      containers: [{ name: "app" }, { name: "other", windowsOptions: { gmsaCredentialSpecName: "webapp2" } }],
    });
    const out = expanded(pod);
    expect(out.spec?.securityContext?.windowsOptions?.gmsaCredentialSpec).toBe(inlined(WEBAPP1_CREDSPEC));
    expect(out.spec?.containers?.[0]?.securityContext).toBeUndefined();
    expect(out.spec?.containers?.[1]?.securityContext?.windowsOptions?.gmsaCredentialSpec).toBe(
      inlined(WEBAPP2_CREDSPEC),
    );
  });

  it("names every place sharing a credspec that is too large in one refusal, and names every place of an unknown one", () => {
    const pod = buildPod({
      windowsOptions: { gmsaCredentialSpecName: "big" },
      containers: [{ name: "app", windowsOptions: { gmsaCredentialSpecName: "big" } }],
      initContainers: [
        { name: "setup", windowsOptions: { gmsaCredentialSpecName: "gone" } },
        { name: "s2", windowsOptions: { gmsaCredentialSpecName: "gone" } },
      ],
    });
    const decision = expand(create(pod), {
      credspecs: {
        big: { blob: "x".repeat(MAX_CREDSPEC_CONTENTS_BYTES) },
        gone: new AdmissionError("not found", { code: "ERR_CREDSPEC_NOT_FOUND" }),
      },
    });
    expect(decision.allowed ? [] : decision.errors.map((e) => e.where)).toEqual([
      { place: 'pod, container "app"', credSpecName: "big" },
      { place: 'init container "setup", init container "s2"', credSpecName: "gone" },
    ]);
  });

  it("accepts contents of exactly 65,536 bytes of UTF-8 and refuses one byte more", () => {
    const exactly = { b: "é".repeat((MAX_CREDSPEC_CONTENTS_BYTES - '{"b":""}'.length) / 2) };
    expect(new TextEncoder().encode(JSON.stringify(exactly)).length).toBe(MAX_CREDSPEC_CONTENTS_BYTES);
    const pod = podWithGmsaAt("pod", { gmsaCredentialSpecName: "big" });
    expect(expand(create(pod), { credspecs: { big: exactly } }).allowed).toBe(true);
    expectDenied(expand(create(pod), { credspecs: { big: { ...exactly, c: 1 } } }), [["ERR_CONTENTS_TOO_LARGE", 422]]);
  });

  it(`refuses once (422) to inline more than ${MAX_INLINED_CONTENTS_PER_POD} characters into one pod`, () => {
    const blob = { b: "x".repeat(60_000) };
    const containers = Array.from({ length: 60 }, (_, i) => ({
      name: `c${i}`,
      windowsOptions: { gmsaCredentialSpecName: "blob" },
    }));
    expectDenied(
      expand(create(buildPod({ containers })), { credspecs: { blob } }),
      [["ERR_CONTENTS_TOO_LARGE", 422]],
      `more than ${MAX_INLINED_CONTENTS_PER_POD} characters`,
    );
  });

  it("refuses more than 16 distinct credspecs (422) without loading anything", () => {
    const containers = Array.from({ length: 17 }, (_, i) => ({
      name: `c${i}`,
      windowsOptions: { gmsaCredentialSpecName: `spec-${i}` },
    }));
    const plan = planExpand(create(buildPod({ containers })), { randomHostname: false });
    expect(plan.load.credspecs).toEqual(new Set());
    expectDenied(decideExpand(plan, load(plan.load, {})), [["ERR_TOO_MANY_REFERENCES", 422]], "17 distinct credspecs");
  });

  it("allows a pod without any GMSA reference unchanged, without loading anything", () => {
    const plan = planExpand(create(buildPod()), { randomHostname: true });
    expect(plan.load).toEqual({ credspecs: new Set(), access: [], randomBytes: 0 });
    expect(decideExpand(plan, load(plan.load, {}))).toEqual({ allowed: true, patch: [] });
  });
});

describe("expand: alpha annotations", () => {
  it.each([
    { kind: "pod" as const, keys: annotationKeys() },
    { kind: "container" as const, keys: annotationKeys("app") },
    { kind: "init container" as const, keys: annotationKeys("setup") },
  ])("fills the $kind contents annotation and sets the fields, loading the credspec once", ({ kind, keys }) => {
    const pod =
      kind === "pod"
        ? buildPod({ annotations: { [keys.nameKey]: "webapp1" } })
        : podWithGmsaAt(kind, { gmsaCredentialSpecName: "webapp1" }, { annotations: { [keys.nameKey]: "webapp1" } });
    expect(planExpand(create(pod), { randomHostname: false }).load.credspecs).toEqual(new Set(["webapp1"]));
    const out = expanded(pod);
    expect(out.metadata?.annotations).toEqual({
      [keys.nameKey]: "webapp1",
      [keys.contentsKey]: inlined(WEBAPP1_CREDSPEC),
    });
    expect(windowsOptionsAt(out, kind)).toEqual(expanded1);
  });

  it("refuses an annotation naming an absent container and one conflicting with its field (422), loading nothing", () => {
    const keys = annotationKeys("app");
    const pod = podWithGmsaAt(
      "container",
      { gmsaCredentialSpecName: "webapp1" },
      { annotations: { [keys.nameKey]: "webapp2", [annotationKeys("ghost").nameKey]: "webapp1" } },
    );
    const plan = planExpand(create(pod), { randomHostname: false });
    expect(plan.load.credspecs).toEqual(new Set());
    expectDenied(
      decideExpand(plan, load(plan.load, {})),
      [
        ["ERR_ANNOTATION_CONFLICT", 422],
        ["ERR_UNKNOWN_CONTAINER", 422],
      ],
      'container "app" names "webapp1"',
      'container "ghost"',
    );
  });

  it("never copies a contents annotation that repeats a key into the field: the field gets the credspec, authorize refuses the annotation", () => {
    const keys = annotationKeys();
    const repeated = `{"CmsPlugins":[],${inlined(WEBAPP1_CREDSPEC).slice(1)}`;
    const out = expanded(buildPod({ annotations: { [keys.nameKey]: "webapp1", [keys.contentsKey]: repeated } }));
    expect(out.metadata?.annotations?.[keys.contentsKey]).toBe(repeated);
    expect(windowsOptionsAt(out, "pod")).toEqual(expanded1);
  });
});

describe("expand: ephemeral containers (UPDATE of pods/ephemeralcontainers)", () => {
  const before = buildPod({
    windowsOptions: expanded1,
    ephemeralContainers: [{ name: "debugger-1", windowsOptions: { gmsaCredentialSpecName: "webapp2" } }],
  });

  it("expands only the new ephemeral containers, ignoring the stored annotations, and sets no hostname", () => {
    const after = structuredClone(before);
    after.metadata!.annotations = { [annotationKeys("ghost").nameKey]: "x" };
    after.spec!.ephemeralContainers!.push({
      name: "debugger-2",
      securityContext: { windowsOptions: { gmsaCredentialSpecName: "webapp2" } },
    });
    const plan = planExpand(update(before, after, "ephemeralcontainers"), { randomHostname: true });
    expect(plan.load).toEqual({ credspecs: new Set(["webapp2"]), access: [], randomBytes: 0 });
    const out = patched(after, decideExpand(plan, load(plan.load, cluster)));
    expect(out.spec?.ephemeralContainers?.map((c) => c.securityContext?.windowsOptions?.gmsaCredentialSpec)).toEqual([
      undefined,
      inlined(WEBAPP2_CREDSPEC),
    ]);
    expect(out.spec?.hostname).toBeUndefined();
  });

  it("leaves a new ephemeral container without GMSA settings alone: it runs under the pod's, already expanded", () => {
    const after = structuredClone(before);
    after.spec!.ephemeralContainers!.push({ name: "debugger-2" });
    expect(expand(update(before, after, "ephemeralcontainers"), {})).toEqual({ allowed: true, patch: [] });
  });
});

describe("expand: what is not a pod create", () => {
  it.each([{ object: "pod", operation: "DELETE" }, CONNECT_EXEC] as const)("allows $operation unchanged", (review) => {
    expect(expand(review, {})).toEqual({ allowed: true });
  });

  it("allows an update of the pod itself unchanged, without loading anything", () => {
    const pod = podWithGmsaAt("pod", { gmsaCredentialSpecName: "webapp1" });
    expect(expand(update(pod, pod), {})).toEqual({ allowed: true });
  });

  it("allows another kind unchanged, with a warning", () => {
    expect(expand({ object: "other", group: "", version: "v1", kind: "Service" }, {})).toEqual({
      allowed: true,
      warnings: [expect.stringContaining("core/v1 Service")],
    });
  });
});
