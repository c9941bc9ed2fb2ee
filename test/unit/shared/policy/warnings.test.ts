import { describe, expect, it } from "vitest";
import type { Pod } from "../../../../shared/policy/pod.ts";
import { listOptionsPlaces } from "../../../../shared/policy/walk.ts";
import { listRunAsUserWarnings as listWarnings } from "../../../../shared/policy/warnings.ts";

const listRunAsUserWarnings = (pod: Pod) => listWarnings(listOptionsPlaces(pod));
import { buildPod, PLACES, podWithGmsaAt } from "../../../support/pods.ts";

describe("listRunAsUserWarnings", () => {
  it.each(PLACES)("warns when the $kind has a GMSA and runs as a local account", ({ kind }) => {
    const warnings = listRunAsUserWarnings(podWithGmsaAt(kind, { gmsaCredentialSpecName: "webapp1", runAsUserName: "ContainerUser" }));
    expect(warnings.length).toBeGreaterThan(0);
    for (const warning of warnings) {
      expect(warning).toContain('"webapp1"');
      expect(warning).toContain('"ContainerUser"');
    }
  });

  it("names each container the pod-level GMSA and user reach", () => {
    const warnings = listRunAsUserWarnings(podWithGmsaAt("pod", { gmsaCredentialSpecName: "webapp1", runAsUserName: "ContainerAdministrator" }));
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain('container "app"');
    expect(warnings[1]).toContain('init container "setup"');
  });

  it("combines a container's GMSA with the pod's user and the other way round", () => {
    const podUser = buildPod({
      windowsOptions: { runAsUserName: "ContainerUser" },
      containers: [{ name: "app", windowsOptions: { gmsaCredentialSpecName: "webapp1" } }],
    });
    expect(listRunAsUserWarnings(podUser)).toEqual([expect.stringContaining('container "app"')]);
    const containerUser = buildPod({
      windowsOptions: { gmsaCredentialSpecName: "webapp1" },
      containers: [{ name: "app", windowsOptions: { runAsUserName: "ContainerUser" } }],
    });
    expect(listRunAsUserWarnings(containerUser)).toEqual([expect.stringContaining('container "app"')]);
  });

  it.each(["NT AUTHORITY\\SYSTEM", "NT AUTHORITY\\NETWORK SERVICE", "nt authority\\system", "Nt Authority\\Network Service"])(
    "does not warn for %j, in any case",
    (user) => {
      for (const { kind } of PLACES) {
        expect(listRunAsUserWarnings(podWithGmsaAt(kind, { gmsaCredentialSpecName: "webapp1", runAsUserName: user }))).toEqual([]);
      }
    },
  );

  it("does not warn without a GMSA or without an explicit user", () => {
    expect(listRunAsUserWarnings(podWithGmsaAt("container", { runAsUserName: "ContainerUser" }))).toEqual([]);
    expect(listRunAsUserWarnings(podWithGmsaAt("container", { gmsaCredentialSpecName: "webapp1" }))).toEqual([]);
  });

  it("a container's own NT AUTHORITY\\SYSTEM overrides a pod-level local account", () => {
    const pod = buildPod({
      windowsOptions: { gmsaCredentialSpecName: "webapp1", runAsUserName: "ContainerUser" },
      containers: [{ name: "app", windowsOptions: { runAsUserName: "NT AUTHORITY\\SYSTEM" } }],
      initContainers: [],
    });
    expect(listRunAsUserWarnings(pod)).toEqual([]);
  });

  it("keeps a long user name short", () => {
    const [warning] = listRunAsUserWarnings(podWithGmsaAt("container", { gmsaCredentialSpecName: "webapp1", runAsUserName: "u".repeat(500) }));
    expect(warning!.length).toBeLessThan(256);
  });
});
