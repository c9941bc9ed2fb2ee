import { describe, expect, it } from "vitest";
import type { Pod, WindowsOptions } from "../../../../shared/admission/review.ts";
import { annotationKeys, readPodGmsa, type OptionsPlace } from "../../../../shared/policy/pod-gmsa.ts";
import { checkUpdate as checkUpdateOf } from "../../../../shared/policy/update.ts";

const checkUpdate = (before: Pod, after: Pod, isNew?: (place: OptionsPlace) => boolean) =>
  checkUpdateOf(readPodGmsa(before), readPodGmsa(after), isNew);
import { buildPod, inlined, PLACES, podWithGmsaAt, WEBAPP1_CREDSPEC, WEBAPP2_CREDSPEC } from "../../../support/pods.ts";

const expanded1: WindowsOptions = { gmsaCredentialSpecName: "webapp1", gmsaCredentialSpec: inlined(WEBAPP1_CREDSPEC) };

describe("checkUpdate", () => {
  const changes: { what: string; after: WindowsOptions | undefined; message: string }[] = [
    {
      what: "the name",
      after: { ...expanded1, gmsaCredentialSpecName: "webapp2" },
      message: 'changed from "webapp1" to "webapp2"',
    },
    {
      what: "the contents",
      after: { ...expanded1, gmsaCredentialSpec: inlined(WEBAPP2_CREDSPEC) },
      message: "contents changed",
    },
    {
      what: "the name and the contents",
      after: { gmsaCredentialSpecName: "webapp2", gmsaCredentialSpec: inlined(WEBAPP2_CREDSPEC) },
      message: "contents changed",
    },
    { what: "the removal of both", after: undefined, message: "removed" },
    { what: "the removal of the contents", after: { gmsaCredentialSpecName: "webapp1" }, message: "contents removed" },
  ];

  for (const { kind, label } of PLACES) {
    it.each(changes)(`refuses an update of $what on the ${kind} (400), naming the place`, ({ after, message }) => {
      const before = podWithGmsaAt(kind, expanded1);
      const errors = checkUpdate(before, after === undefined ? buildPod() : podWithGmsaAt(kind, after));
      expect(errors.map((e) => [e.code, e.status])).toEqual([["ERR_GMSA_CHANGED", 400]]);
      expect(errors[0]?.message).toContain(label);
      expect(errors[0]?.message).toContain(message);
      expect(errors[0]?.message).not.toContain("CONTOSO");
    });

    it(`refuses a GMSA added on update on the ${kind} (400)`, () => {
      const errors = checkUpdate(buildPod(), podWithGmsaAt(kind, expanded1));
      expect(errors.map((e) => [e.code, e.status])).toEqual([["ERR_GMSA_CHANGED", 400]]);
      expect(errors[0]?.message).toContain(label);
      expect(errors[0]?.message).toContain('"webapp1" added');
    });

    it(`allows an update of unrelated fields with the GMSA on the ${kind}`, () => {
      const before = podWithGmsaAt(kind, expanded1);
      const after = podWithGmsaAt(
        kind,
        { ...expanded1, runAsUserName: "ContainerUser" },
        { annotations: { "example.com/x": "y" } },
      );
      after.spec!.activeDeadlineSeconds = 30;
      expect(checkUpdate(before, after)).toEqual([]);
    });
  }

  it("refuses changes of the alpha annotations (400), naming the key", () => {
    const key = annotationKeys("app").nameKey;
    const errors = checkUpdate(
      buildPod({ annotations: { [key]: "webapp1" } }),
      buildPod({ annotations: { [key]: "webapp2" } }),
    );
    expect(errors.map((e) => [e.code, e.status])).toEqual([["ERR_GMSA_CHANGED", 400]]);
    expect(errors[0]?.message).toContain(key);
  });

  it("names every changed place, not just the first", () => {
    const before = buildPod({
      windowsOptions: expanded1,
      containers: [{ name: "app", windowsOptions: expanded1 }],
      initContainers: [{ name: "setup", windowsOptions: expanded1 }],
    });
    const changed = { ...expanded1, gmsaCredentialSpecName: "webapp2" };
    const after = buildPod({
      windowsOptions: changed,
      containers: [{ name: "app", windowsOptions: changed }],
      initContainers: [{ name: "setup", windowsOptions: changed }],
    });
    expect(checkUpdate(before, after).map((e) => e.where?.place)).toEqual([
      "pod",
      'container "app"',
      'init container "setup"',
    ]);
  });

  it("skips new places the caller judges like a create", () => {
    const before = buildPod({ ephemeralContainers: [] });
    const after = buildPod({ ephemeralContainers: [{ name: "debugger", windowsOptions: expanded1 }] });
    expect(checkUpdate(before, after, (place) => place.label === 'ephemeral container "debugger"')).toEqual([]);
    expect(checkUpdate(before, after)).toHaveLength(1);
  });
});
