import { describe, expect, it } from "vitest";
import {
  authenticationConfigurationApiVersion,
  defaultKubeRelease,
  floorKubeRelease,
  kubeAtLeast,
  kubeReleases,
  minorOf,
  resolveKubeRelease,
} from "../../../infra/local/kube-versions.ts";

describe("pinned Kubernetes releases", () => {
  it("default to go.mod, the newest, with the oldest as the floor", () => {
    const releases = kubeReleases();
    expect(defaultKubeRelease().modFile).toBe("go.mod");
    expect(releases.length).toBeGreaterThanOrEqual(2);
    const minors = releases.map((r) => Number(r.minor.split(".")[1]));
    expect(minors).toEqual([...minors].sort((a, b) => b - a));
    expect(floorKubeRelease()).toBe(releases.at(-1));
  });
});

describe("resolveKubeRelease", () => {
  const floor = floorKubeRelease();

  it("takes the default when nothing is asked, else a minor, with or without v, or the pinned patch release; refuses others, naming the pinned", () => {
    expect(resolveKubeRelease(undefined)).toBe(defaultKubeRelease());
    expect(resolveKubeRelease("")).toBe(defaultKubeRelease());
    for (const asked of [floor.minor, `v${floor.minor}`, floor.version, floor.version.slice(1)])
      expect(resolveKubeRelease(asked)).toBe(floor);
    expect(() => resolveKubeRelease("1.12")).toThrow(/Kubernetes 1\.12 is not pinned.*pinned: v1\./);
    expect(() => resolveKubeRelease(`${floor.minor}.999`)).toThrow(`Kubernetes ${floor.minor}.999 is not pinned`);
    expect(() => resolveKubeRelease("latest")).toThrow(/not a Kubernetes version: "latest"/);
  });
});

describe("features by version", () => {
  it("reads the minor of a release or a minor, refusing what is not a version, and compares minors numerically (1.100 is after 1.37)", () => {
    expect(minorOf("v1.30.14")).toBe("1.30");
    expect(minorOf("1.37")).toBe("1.37");
    expect(() => minorOf("latest")).toThrow(/not a Kubernetes version: "latest"/);
    expect(kubeAtLeast("v1.30.14", "1.30")).toBe(true);
    expect(kubeAtLeast("v1.30.14", "1.33")).toBe(false);
    expect(kubeAtLeast("v1.100.0", "1.37")).toBe(true);
    expect(kubeAtLeast("v2.0.0", "1.99")).toBe(true);
  });

  it("writes the authentication configuration as v1beta1 before 1.34 and v1 from 1.34", () => {
    expect(authenticationConfigurationApiVersion("v1.30.14")).toBe("apiserver.config.k8s.io/v1beta1");
    expect(authenticationConfigurationApiVersion("v1.33.13")).toBe("apiserver.config.k8s.io/v1beta1");
    expect(authenticationConfigurationApiVersion("v1.34.0")).toBe("apiserver.config.k8s.io/v1");
    expect(authenticationConfigurationApiVersion("v1.37.2")).toBe("apiserver.config.k8s.io/v1");
  });
});
