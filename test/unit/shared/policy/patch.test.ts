import fastJsonPatch from "fast-json-patch";
import { describe, expect, it } from "vitest";
import { buildPodPatch } from "../../../../shared/policy/patch.ts";
import { buildPod } from "../../../support/pods.ts";

describe("buildPodPatch", () => {
  it("is empty for an unchanged pod", () => {
    expect(buildPodPatch(buildPod(), buildPod())).toEqual([]);
  });

  it("adds missing securityContext parents as whole objects, so the patch applies to the original", () => {
    const original = buildPod();
    const changed = buildPod({ containers: [{ name: "app", windowsOptions: { gmsaCredentialSpec: "{}" } }] });
    const patch = buildPodPatch(original, changed);
    expect(patch).toEqual([{ op: "add", path: "/spec/containers/0/securityContext", value: { windowsOptions: { gmsaCredentialSpec: "{}" } } }]);
    expect(fastJsonPatch.applyPatch(structuredClone(original), patch, true, false).newDocument).toEqual(changed);
  });

  it("escapes annotation keys with slashes (RFC 6901)", () => {
    const original = buildPod({ annotations: {} });
    const changed = buildPod({ annotations: { "pod.alpha.windows.kubernetes.io/gmsa-credential-spec": "{}" } });
    const patch = buildPodPatch(original, changed);
    expect(patch).toEqual([{ op: "add", path: "/metadata/annotations/pod.alpha.windows.kubernetes.io~1gmsa-credential-spec", value: "{}" }]);
  });
});
