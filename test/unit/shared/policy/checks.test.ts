import { describe, expect, it } from "vitest";
import type { Pod } from "../../../../shared/admission/review.ts";
import {
  checkNames,
  distinctNames,
  listRunAsUserWarnings as listWarnings,
  MAX_CREDSPECS_PER_POD,
  truncate,
} from "../../../../shared/policy/checks.ts";
import { readPodGmsa, type GmsaReference } from "../../../../shared/policy/pod-gmsa.ts";
import { buildPod, podWithGmsaAt } from "../../../support/pods.ts";

const listRunAsUserWarnings = (pod: Pod) => listWarnings(readPodGmsa(pod).places);

function ref(label: string, name: string | undefined, contents: string | undefined): GmsaReference {
  return { label, name, contents };
}

describe("checkNames", () => {
  it("refuses an empty name and keeps long names short in the message", () => {
    const errors = checkNames([ref("pod", "", undefined), ref('container "app"', "X".repeat(1000), undefined)]);
    expect(errors).toHaveLength(2);
    expect(errors[1]!.message.length).toBeLessThan(200);
  });

  it(`accepts ${MAX_CREDSPECS_PER_POD} distinct names, however often one repeats`, () => {
    const names = Array.from({ length: MAX_CREDSPECS_PER_POD }, (_, i) =>
      ref(`container "c${i}"`, `n-${i}`, undefined),
    );
    expect(checkNames([...names, ref("pod", "n-0", undefined)])).toEqual([]);
  });
});

describe("distinctNames", () => {
  it("keeps valid names once each, in first-seen order", () => {
    const refs = [
      ref("a", "b-name", undefined),
      ref("b", "a-name", "{}"),
      ref("c", "b-name", undefined),
      ref("d", "BAD", undefined),
      ref("e", undefined, "{}"),
    ];
    expect([...distinctNames(refs)]).toEqual(["b-name", "a-name"]);
  });
});

describe("truncate", () => {
  it("keeps short text and cuts long text with an ellipsis", () => {
    expect(truncate("short")).toBe("short");
    expect(truncate("x".repeat(100), 10)).toBe(`${"x".repeat(10)}…`);
  });
});

describe("listRunAsUserWarnings", () => {
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
    const [warning] = listRunAsUserWarnings(
      podWithGmsaAt("container", { gmsaCredentialSpecName: "webapp1", runAsUserName: "u".repeat(500) }),
    );
    expect(warning!.length).toBeLessThan(256);
  });
});
