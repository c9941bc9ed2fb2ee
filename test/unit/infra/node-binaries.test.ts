import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { kubeReleases } from "../../../infra/local/kube-versions.ts";
import { REPO_ROOT } from "../../../infra/build/repo-root.ts";

async function required(moduleFile: string, module: string): Promise<string | undefined> {
  const text = await readFile(`${REPO_ROOT}/infra/local/${moduleFile}`, "utf8");
  return new RegExp(`^\\s*${module.replace(/[./]/g, "\\$&")} (v\\S+)`, "m").exec(text)?.[1];
}

describe("the local node's Go modules", () => {
  it.each(kubeReleases().map((release) => [release.modFile, release.version]))(
    "pin the API server's k8s.io/kubernetes release for kubelet, kube-scheduler and kube-controller-manager (%s: %s)",
    async (modFile, version) => {
      expect(await required(`apiserver/${modFile}`, "k8s.io/kubernetes")).toBe(version);
      expect(await required(`kube-components/${modFile}`, "k8s.io/kubernetes")).toBe(version);
    },
  );

  it("build containerd v2 (Debian's 1.6 is too old for the kubelet)", async () => {
    expect(await required("containerd/go.mod", "github.com/containerd/containerd/v2")).toMatch(/^v2\./);
  });
});
