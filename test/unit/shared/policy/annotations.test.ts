import { describe, expect, it } from "vitest";
import {
  annotationKeys,
  isGmsaAnnotationKey,
  listAnnotationReferences,
  POD_CONTENTS_ANNOTATION,
  POD_NAME_ANNOTATION,
} from "../../../../shared/policy/annotations.ts";
import { buildPod } from "../../../support/pods.ts";

describe("annotationKeys", () => {
  it("gives the pod-level keys without a container and the container-level keys with one", () => {
    expect(annotationKeys()).toEqual({ nameKey: POD_NAME_ANNOTATION, contentsKey: POD_CONTENTS_ANNOTATION });
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

describe("listAnnotationReferences", () => {
  it("pairs name and contents per pod and per container, pod first, ignoring other annotations", () => {
    const pod = buildPod({
      annotations: {
        "web.container.alpha.windows.kubernetes.io/gmsa-credential-spec-name": "webapp2",
        [POD_NAME_ANNOTATION]: "webapp1",
        [POD_CONTENTS_ANNOTATION]: "{}",
        "app.container.alpha.windows.kubernetes.io/gmsa-credential-spec": "{}",
        "example.com/other": "x",
      },
    });
    expect(listAnnotationReferences(pod)).toEqual([
      { ...annotationKeys(), name: "webapp1", contents: "{}" },
      { ...annotationKeys("app"), containerName: "app", name: undefined, contents: "{}" },
      { ...annotationKeys("web"), containerName: "web", name: "webapp2", contents: undefined },
    ]);
  });

  it("is empty for a pod without annotations", () => {
    expect(listAnnotationReferences(buildPod())).toEqual([]);
  });
});
