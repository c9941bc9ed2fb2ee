import { describe, expect, it } from "vitest";
import {
  annotationKeys,
  findNewEphemeralContainers,
  hasGmsaSettings,
  isGmsaAnnotationKey,
  readPodGmsa,
} from "../../../../shared/policy/pod-gmsa.ts";
import { buildPod, inlined, PLACES, podWithGmsaAt, WEBAPP1_CREDSPEC } from "../../../support/pods.ts";
import { create } from "./review-facts.ts";

const { nameKey: POD_NAME_ANNOTATION, contentsKey: POD_CONTENTS_ANNOTATION } = annotationKeys();

describe("readPodGmsa: places", () => {
  it("lists the pod, then containers, init containers and ephemeral containers, with labels and paths; the pod alone without spec", () => {
    const pod = buildPod({
      windowsOptions: { gmsaCredentialSpecName: "p" },
      containers: [{ name: "app" }, { name: "sidecar", windowsOptions: { gmsaCredentialSpecName: "s" } }],
      initContainers: [{ name: "setup" }],
      ephemeralContainers: [{ name: "debugger" }],
    });
    const at = (list: string, i: number) => `spec/${list}/${i}/securityContext/windowsOptions`;
    expect(readPodGmsa(pod).places.map((p) => [p.scope, p.label, p.containerName, p.path.join("/")])).toEqual([
      ["pod", "pod", undefined, "spec/securityContext/windowsOptions"],
      ["containers", 'container "app"', "app", at("containers", 0)],
      ["containers", 'container "sidecar"', "sidecar", at("containers", 1)],
      ["initContainers", 'init container "setup"', "setup", at("initContainers", 0)],
      ["ephemeralContainers", 'ephemeral container "debugger"', "debugger", at("ephemeralContainers", 0)],
    ]);
    const places = readPodGmsa(pod).places;
    expect(places[0]?.options).toEqual({ gmsaCredentialSpecName: "p" });
    expect(places[1]?.options).toBeUndefined();
    expect(places[2]?.options).toEqual({ gmsaCredentialSpecName: "s" });
    expect(readPodGmsa({}).places.map((p) => p.label)).toEqual(["pod"]);
  });
});

describe("hasGmsaSettings", () => {
  it.each([
    [undefined, false],
    [{}, false],
    [{ runAsUserName: "x" }, false],
    [{ gmsaCredentialSpecName: "a" }, true],
    [{ gmsaCredentialSpec: "{}" }, true],
    [{ gmsaCredentialSpecName: "", gmsaCredentialSpec: "" }, true],
  ])("hasGmsaSettings(%j) is %s", (options, expected) => {
    expect(hasGmsaSettings(options)).toBe(expected);
  });
});

describe("findNewEphemeralContainers", () => {
  it("is undefined for a CREATE and for any other UPDATE", () => {
    const pod = buildPod({ ephemeralContainers: [{ name: "debugger-1" }] });
    expect(findNewEphemeralContainers(create(pod))).toBeUndefined();
    const update = { ...create(pod), operation: "UPDATE", subResource: undefined, oldPod: buildPod() } as const;
    expect(findNewEphemeralContainers(update)).toBeUndefined();
  });
});

describe("annotationKeys", () => {
  it("gives the pod-level keys without a container and the container-level keys with one", () => {
    expect(annotationKeys()).toEqual({
      nameKey: "pod.alpha.windows.kubernetes.io/gmsa-credential-spec-name",
      contentsKey: "pod.alpha.windows.kubernetes.io/gmsa-credential-spec",
    });
    expect(annotationKeys("app")).toEqual({
      nameKey: "app.container.alpha.windows.kubernetes.io/gmsa-credential-spec-name",
      contentsKey: "app.container.alpha.windows.kubernetes.io/gmsa-credential-spec",
    });
  });
});

describe("isGmsaAnnotationKey", () => {
  it.each([
    [POD_NAME_ANNOTATION, true],
    [POD_CONTENTS_ANNOTATION, true],
    ["app.container.alpha.windows.kubernetes.io/gmsa-credential-spec-name", true],
    ["app.container.alpha.windows.kubernetes.io/gmsa-credential-spec", true],
    [".container.alpha.windows.kubernetes.io/gmsa-credential-spec", false],
    ["app.container.alpha.windows.kubernetes.io/other", false],
    ["pod.alpha.windows.kubernetes.io/other", false],
    ["example.com/gmsa-credential-spec-name", false],
  ])("isGmsaAnnotationKey(%j) is %s", (key, expected) => {
    expect(isGmsaAnnotationKey(key)).toBe(expected);
  });
});

describe("readPodGmsa: refs", () => {
  it.each(PLACES)("lists a field reference on the $kind by its label", ({ kind, label }) => {
    const pod = podWithGmsaAt(kind, { gmsaCredentialSpecName: "webapp1", gmsaCredentialSpec: "{}" });
    expect(readPodGmsa(pod).refs).toEqual([{ label, name: "webapp1", contents: "{}" }]);
  });

  it("lists fields, then annotations paired per pod and per container, pod first; labels an annotation by its name key, else its contents key; skips other annotations and places without GMSA settings", () => {
    const pod = buildPod({
      containers: [
        { name: "app", windowsOptions: { gmsaCredentialSpecName: "webapp1" } },
        { name: "other", windowsOptions: { runAsUserName: "ContainerUser" } },
      ],
      annotations: {
        "web.container.alpha.windows.kubernetes.io/gmsa-credential-spec-name": "webapp2",
        [POD_NAME_ANNOTATION]: "webapp1",
        [POD_CONTENTS_ANNOTATION]: "{}",
        "app.container.alpha.windows.kubernetes.io/gmsa-credential-spec": "{}",
        "example.com/other": "x",
      },
    });
    expect(readPodGmsa(pod).refs).toEqual([
      { label: 'container "app"', name: "webapp1", contents: undefined },
      { label: `annotation "${POD_NAME_ANNOTATION}"`, name: "webapp1", contents: "{}" },
      { label: `annotation "${annotationKeys("app").contentsKey}"`, name: undefined, contents: "{}" },
      { label: `annotation "${annotationKeys("web").nameKey}"`, name: "webapp2", contents: undefined },
    ]);
  });
});

describe("readPodGmsa: annotations", () => {
  const cases = [
    { kind: "pod" as const, keys: annotationKeys() },
    { kind: "container" as const, keys: annotationKeys("app") },
    { kind: "init container" as const, keys: annotationKeys("setup") },
  ];

  it.each(cases)(
    "refuses $kind annotation contents that differ from the field's (422), without quoting them",
    ({ kind, keys }) => {
      const pod = podWithGmsaAt(
        kind,
        { gmsaCredentialSpecName: "webapp1", gmsaCredentialSpec: inlined(WEBAPP1_CREDSPEC) },
        { annotations: { [keys.contentsKey]: '{"Secret":"s3cr3t"}' } },
      );
      const { annotationErrors: errors } = readPodGmsa(pod);
      expect(errors.map((e) => [e.code, e.status])).toEqual([["ERR_ANNOTATION_CONFLICT", 422]]);
      expect(errors[0]?.message).toContain(keys.contentsKey);
      expect(errors[0]?.message).not.toContain("s3cr3t");
      expect(errors[0]?.message).not.toContain("CONTOSO");
    },
  );

  it("accepts annotation contents equal to the field's in another key order", () => {
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(WEBAPP1_CREDSPEC).reverse()));
    const pod = podWithGmsaAt(
      "pod",
      { gmsaCredentialSpecName: "webapp1", gmsaCredentialSpec: inlined(WEBAPP1_CREDSPEC) },
      { annotations: { [POD_NAME_ANNOTATION]: "webapp1", [POD_CONTENTS_ANNOTATION]: reordered } },
    );
    expect(readPodGmsa(pod).annotationErrors).toEqual([]);
  });
});
