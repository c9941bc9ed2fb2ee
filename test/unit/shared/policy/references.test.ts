import { describe, expect, it } from "vitest";
import { annotationKeys, POD_CONTENTS_ANNOTATION, POD_NAME_ANNOTATION } from "../../../../shared/policy/annotations.ts";
import { readPodGmsa } from "../../../../shared/policy/references.ts";
import { buildPod, inlined, PLACES, podWithGmsaAt, WEBAPP1_CREDSPEC } from "../../../support/pods.ts";

describe("readPodGmsa: refs", () => {
  it.each(PLACES)("lists a field reference on the $kind by its label", ({ kind, label }) => {
    const pod = podWithGmsaAt(kind, { gmsaCredentialSpecName: "webapp1", gmsaCredentialSpec: "{}" });
    expect(readPodGmsa(pod).refs).toEqual([{ label, name: "webapp1", contents: "{}" }]);
  });

  it("lists fields before annotations and labels an annotation by its name key, else its contents key", () => {
    const pod = buildPod({
      containers: [{ name: "app", windowsOptions: { gmsaCredentialSpecName: "webapp1" } }],
      annotations: { [POD_NAME_ANNOTATION]: "webapp1", [annotationKeys("app").contentsKey]: "{}" },
    });
    expect(readPodGmsa(pod).refs).toEqual([
      { label: 'container "app"', name: "webapp1", contents: undefined },
      { label: `annotation "${POD_NAME_ANNOTATION}"`, name: "webapp1", contents: undefined },
      { label: `annotation "${annotationKeys("app").contentsKey}"`, name: undefined, contents: "{}" },
    ]);
  });

  it("ignores places whose windowsOptions carry no GMSA setting", () => {
    expect(readPodGmsa(podWithGmsaAt("container", { runAsUserName: "ContainerUser" })).refs).toEqual([]);
  });
});

describe("readPodGmsa: annotations", () => {
  const cases = [
    { kind: "pod" as const, keys: annotationKeys() },
    { kind: "container" as const, keys: annotationKeys("app") },
    { kind: "init container" as const, keys: annotationKeys("setup") },
  ];

  it.each(cases)("pairs the $kind annotation with its place", ({ kind, keys }) => {
    const pod = podWithGmsaAt(kind, { gmsaCredentialSpecName: "webapp1" }, { annotations: { [keys.nameKey]: "webapp1" } });
    const { pairs, annotationErrors: errors } = readPodGmsa(pod);
    expect(errors).toEqual([]);
    expect(pairs.map((p) => [p.annotation.nameKey, p.place.label])).toEqual([[keys.nameKey, PLACES.find((p) => p.kind === kind)?.label]]);
  });

  it.each(cases)("refuses a $kind annotation naming another credspec than the field (422)", ({ kind, keys }) => {
    const label = PLACES.find((p) => p.kind === kind)?.label ?? "";
    const pod = podWithGmsaAt(kind, { gmsaCredentialSpecName: "webapp1" }, { annotations: { [keys.nameKey]: "webapp2" } });
    const { pairs, annotationErrors: errors } = readPodGmsa(pod);
    expect(pairs).toEqual([]);
    expect(errors.map((e) => [e.code, e.status])).toEqual([["ERR_ANNOTATION_CONFLICT", 422]]);
    expect(errors[0]?.message).toContain(keys.nameKey);
    expect(errors[0]?.message).toContain(label);
    expect(errors[0]?.message).toContain('"webapp1"');
    expect(errors[0]?.message).toContain('"webapp2"');
  });

  it.each(cases)("refuses $kind annotation contents that differ from the field's (422), without quoting them", ({ kind, keys }) => {
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
  });

  it("accepts annotation contents equal to the field's in another key order", () => {
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(WEBAPP1_CREDSPEC).reverse()));
    const pod = podWithGmsaAt(
      "pod",
      { gmsaCredentialSpecName: "webapp1", gmsaCredentialSpec: inlined(WEBAPP1_CREDSPEC) },
      { annotations: { [POD_NAME_ANNOTATION]: "webapp1", [POD_CONTENTS_ANNOTATION]: reordered } },
    );
    expect(readPodGmsa(pod).annotationErrors).toEqual([]);
  });

  it("refuses an annotation naming a container the pod does not have (422)", () => {
    const key = annotationKeys("ghost").nameKey;
    const { pairs, annotationErrors: errors } = readPodGmsa(buildPod({ annotations: { [key]: "webapp1" } }));
    expect(pairs).toEqual([]);
    expect(errors.map((e) => [e.code, e.status])).toEqual([["ERR_UNKNOWN_CONTAINER", 422]]);
    expect(errors[0]?.message).toContain('"ghost"');
    expect(errors[0]?.message).toContain(key);
  });
});
