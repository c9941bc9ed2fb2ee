import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { kubeReleases } from "../../../infra/local/kube-versions.ts";
import { REPO_ROOT } from "../../../infra/build/repo-root.ts";

const read = (file: string): Promise<string> => readFile(`${REPO_ROOT}/infra/local/${file}`, "utf8");

async function required(moduleFile: string, module: string): Promise<string | undefined> {
  return new RegExp(`^\\s*${module.replace(/[./]/g, "\\$&")} (v\\S+)`, "m").exec(await read(moduleFile))?.[1];
}

describe("the local cluster's Go modules", () => {
  it("pin the release's k8s.io/kubernetes and every staging module at its v0 twin, for the API server and the node's kubelet, kube-scheduler and kube-controller-manager alike", async () => {
    for (const release of kubeReleases())
      for (const dir of ["apiserver", "kube-components"]) {
        const modFile = `${dir}/${release.modFile}`;
        expect(await required(modFile, "k8s.io/kubernetes"), modFile).toBe(release.version);
        const replaced = [...(await read(modFile)).matchAll(/^\s+(k8s\.io\/\S+) => (\S+) (\S+)$/gm)];
        expect(replaced.length, modFile).toBeGreaterThan(20);
        const staging = `v0.${release.version.slice("v1.".length)}`;
        for (const [, from, to, version] of replaced)
          expect([to, version], `${modFile}: ${from}`).toEqual([from, staging]);
        expect(await read(`${dir}/${release.sumFile}`)).toContain(`k8s.io/kubernetes ${release.version} `);
      }
  });

  it("build containerd v2 (Debian's 1.6 is too old for the kubelet)", async () => {
    expect(await required("containerd/go.mod", "github.com/containerd/containerd/v2")).toMatch(/^v2\./);
  });
});
