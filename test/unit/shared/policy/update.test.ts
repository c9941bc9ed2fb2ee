import { describe, expect, it } from "vitest";
import type { Pod, WindowsOptions } from "../../../../shared/admission/review.ts";
import { readPodGmsa, type OptionsPlace } from "../../../../shared/policy/pod-gmsa.ts";
import { checkUpdate as checkUpdateOf } from "../../../../shared/policy/update.ts";
import { buildPod, inlined, podWithGmsaAt, WEBAPP1_CREDSPEC } from "../../../support/pods.ts";

const checkUpdate = (before: Pod, after: Pod, isNew?: (place: OptionsPlace) => boolean) =>
  checkUpdateOf(readPodGmsa(before), readPodGmsa(after), isNew);

const expanded1: WindowsOptions = { gmsaCredentialSpecName: "webapp1", gmsaCredentialSpec: inlined(WEBAPP1_CREDSPEC) };

describe("checkUpdate", () => {
  it("refuses a GMSA added on update (400), naming the place", () => {
    const errors = checkUpdate(buildPod(), podWithGmsaAt("container", expanded1));
    expect(errors.map((e) => [e.code, e.status])).toEqual([["ERR_GMSA_CHANGED", 400]]);
    expect(errors[0]?.message).toContain('container "app": GMSA settings cannot change on update');
    expect(errors[0]?.message).toContain('credspec name "webapp1" added, contents added');
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
