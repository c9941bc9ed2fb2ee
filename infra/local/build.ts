/**
 * Builds kube-apiserver and etcd from the Go modules pinned in infra/local/apiserver and infra/local/etcd into
 * `.cache/bin/`, once, through infra/build/tools/go-build.ts (a stamp file holds a hash of the inputs, so a binary is
 * rebuilt only when its go.mod, go.sum or main.go, or the Go toolchain, changes). kube-apiserver is built per
 * Kubernetes version (kube-versions.ts), as `kube-apiserver-v1.30.14` and so on, so versions live side by side.
 *
 * CLI: `node infra/local/build.ts [--kube-version 1.30]` prints the binary paths as JSON. Helm is built apart, by
 * `node infra/build/helm/build.ts`.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { REPO_ROOT } from "../build/repo-root.ts";
import { ensureBinary, prepareBuild, type Target } from "../build/tools/go-build.ts";
import { APISERVER_MODULE_DIR, resolveKubeRelease, type KubeRelease } from "./kube-versions.ts";

/**
 * Kubernetes' own build stamps its version into these variables (hack/lib/version.sh); a plain
 * `go build` would report `v0.0.0-master` from /version, which clients and tests read.
 */
export function kubernetesVersionVariables(version: string): string[] {
  const [major, minor] = version.replace(/^v/, "").split(".");
  return ["k8s.io/component-base/version", "k8s.io/client-go/pkg/version"].flatMap((pkg) => [
    `-X ${pkg}.gitVersion=${version}`,
    `-X ${pkg}.gitMajor=${major}`,
    `-X ${pkg}.gitMinor=${minor}`,
    `-X ${pkg}.gitTreeState=clean`,
  ]);
}

/** kube-apiserver of one pinned release, named by its version. */
function apiserverTarget(release: KubeRelease): Target {
  return {
    name: `kube-apiserver-${release.version}`,
    moduleDir: APISERVER_MODULE_DIR,
    ...(release.modFile === "go.mod" ? {} : { modFile: { mod: release.modFile, sum: release.sumFile } }),
    pkg: ".",
    pinned: "k8s.io/kubernetes",
    versionVariables: kubernetesVersionVariables,
  };
}

/**
 * One etcd for every pinned Kubernetes version: kube-apiserver speaks etcd's v3 API, which 3.6 serves to the 3.5
 * clients of Kubernetes 1.30 as to the 3.7 clients of 1.37 (both ends pass the e2e tier on it).
 */
const ETCD: Target = {
  name: "etcd",
  moduleDir: join(REPO_ROOT, "infra", "local", "etcd"),
  pkg: ".",
  pinned: "go.etcd.io/etcd/server/v3",
  // etcd's version is a constant in go.etcd.io/etcd/api/v3/version.
  versionVariables: () => [],
};

/** Paths of the built binaries. */
export interface LocalBinaries {
  apiserver: string;
  etcd: string;
  /** The Kubernetes version kube-apiserver was built from, e.g. `v1.37.2`. */
  kubeVersion: string;
}

function log(message: string): void {
  process.stderr.write(`[build] ${message}\n`);
}

/**
 * Returns the paths of kube-apiserver of the Kubernetes version asked for (`1.30`, `v1.30.14`; default
 * `KUBE_VERSION`, then the newest pinned: kube-versions.ts) and of etcd, building each one that is missing
 * or whose inputs changed. Progress and elapsed seconds go to stderr. The two builds run one after the
 * other: each `go build` already uses every core, and the second reuses packages the first compiled
 * (measured on 2 cores from empty caches: 293 s in sequence, 327 s side by side).
 * @throws TypeError when the version is not pinned; Error when `go` is missing or a build fails (with the
 * tail of the build log).
 */
export async function ensureBinaries(kubeVersion = process.env.KUBE_VERSION): Promise<LocalBinaries> {
  const release = resolveKubeRelease(kubeVersion);
  const goVersion = await prepareBuild();
  const apiserver = await ensureBinary(apiserverTarget(release), goVersion);
  const etcd = await ensureBinary(ETCD, goVersion);
  return { apiserver, etcd, kubeVersion: release.version };
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: { "kube-version": { type: "string" } },
  });
  const started = Date.now();
  const binaries = await ensureBinaries(values["kube-version"] ?? process.env.KUBE_VERSION);
  log(`ready in ${Math.round((Date.now() - started) / 1000)} s`);
  console.log(JSON.stringify(binaries, null, 2));
}
