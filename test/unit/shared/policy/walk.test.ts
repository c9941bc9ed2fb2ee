import { describe, expect, it } from "vitest";
import { hasGmsaSettings, isNewEphemeralContainer, listOptionsPlaces } from "../../../../shared/policy/walk.ts";
import { buildPod } from "../../../support/pods.ts";

describe("listOptionsPlaces", () => {
  it("lists the pod, then containers, init containers and ephemeral containers, with labels and paths", () => {
    const pod = buildPod({
      windowsOptions: { gmsaCredentialSpecName: "p" },
      containers: [{ name: "app" }, { name: "sidecar", windowsOptions: { gmsaCredentialSpecName: "s" } }],
      initContainers: [{ name: "setup" }],
      ephemeralContainers: [{ name: "debugger" }],
    });
    expect(listOptionsPlaces(pod).map(({ scope, label, containerName, path }) => ({ scope, label, containerName, path: path.join("/") }))).toEqual([
      { scope: "pod", label: "pod", containerName: undefined, path: "spec/securityContext/windowsOptions" },
      { scope: "containers", label: 'container "app"', containerName: "app", path: "spec/containers/0/securityContext/windowsOptions" },
      { scope: "containers", label: 'container "sidecar"', containerName: "sidecar", path: "spec/containers/1/securityContext/windowsOptions" },
      { scope: "initContainers", label: 'init container "setup"', containerName: "setup", path: "spec/initContainers/0/securityContext/windowsOptions" },
      {
        scope: "ephemeralContainers",
        label: 'ephemeral container "debugger"',
        containerName: "debugger",
        path: "spec/ephemeralContainers/0/securityContext/windowsOptions",
      },
    ]);
    const places = listOptionsPlaces(pod);
    expect(places[0]?.options).toEqual({ gmsaCredentialSpecName: "p" });
    expect(places[1]?.options).toBeUndefined();
    expect(places[2]?.options).toEqual({ gmsaCredentialSpecName: "s" });
  });

  it("lists only the pod for a pod without spec", () => {
    expect(listOptionsPlaces({}).map((p) => p.label)).toEqual(["pod"]);
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

describe("isNewEphemeralContainer", () => {
  it("is true only for ephemeral containers the old pod did not have", () => {
    const oldPod = buildPod({ ephemeralContainers: [{ name: "debugger-1" }] });
    const newPod = buildPod({ ephemeralContainers: [{ name: "debugger-1" }, { name: "debugger-2" }] });
    const isNew = isNewEphemeralContainer(oldPod);
    expect(listOptionsPlaces(newPod).filter(isNew).map((p) => p.label)).toEqual(['ephemeral container "debugger-2"']);
  });
});
