/**
 * The binaries of the local node (`npm run dev -- --in-cluster`, the e2e tier's in-cluster tests), built from pinned
 * Go modules into `.cache/bin` like kube-apiserver (build.ts), once, and rebuilt only when their inputs change:
 * - kubelet, kube-scheduler, kube-controller-manager: tools of infra/local/kube-components, one module file per
 *   Kubernetes version as for the API server (`go.mod` the default, `kube-1.30.mod` the floor), each pinning the same
 *   k8s.io/kubernetes release as the API server's file of that name (a kubelet must not be newer than its API
 *   server), into `.cache/bin/kubelet-<version>` and so on;
 * - containerd v2, its runc shim and `ctr`: infra/local/containerd/go.mod, into `.cache/bin/containerd-<version>/`
 *   (that folder goes first on containerd's PATH, so it starts its own shim);
 * - the CNI plugins bridge, host-local, loopback and portmap: infra/local/cni/go.mod, into `.cache/bin/cni-<version>/`;
 * - the pause process of the pod sandbox: infra/local/pause, static;
 * - runc from Debian (`apt-get install runc`), with iptables, which the kubelet and portmap need.
 * About 11 minutes from an empty Go cache on 2 cores, 4 with the API server's packages compiled; nothing once built.
 *
 * CLI: `node infra/local/node-binaries.ts [--kube-version 1.30]` prints the paths as JSON.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { parseArgs, promisify } from "node:util";
import { REPO_ROOT } from "../build/repo-root.ts";
import { BIN_DIR, ensureBinary, pinnedVersion, prepareBuild, type Target } from "../build/tools/go-build.ts";
import { aptInstall } from "./apt.ts";
import { kubernetesVersionVariables } from "./build.ts";
import { resolveKubeRelease, type KubeRelease } from "./kube-versions.ts";

const run = promisify(execFile);

/** Paths of the node's programs. */
export interface NodeBinaries {
  kubelet: string;
  scheduler: string;
  controllerManager: string;
  /** Folder of `containerd`, `containerd-shim-runc-v2` and `ctr`. */
  containerdDir: string;
  /** Folder of the CNI plugins (`bridge`, `host-local`, `loopback`, `portmap`). */
  cniDir: string;
  /** The static pause binary the sandbox image is made of. */
  pause: string;
  /** Debian's runc. */
  runc: string;
  /** The k8s.io/kubernetes version of the three Kubernetes binaries, e.g. `v1.37.2`. */
  kubeVersion: string;
}

const KUBE_COMPONENTS_DIR = join(REPO_ROOT, "infra", "local", "kube-components");
const CONTAINERD_DIR = join(REPO_ROOT, "infra", "local", "containerd");
const CNI_DIR = join(REPO_ROOT, "infra", "local", "cni");

function kubeComponent(command: string, release: KubeRelease): Target {
  return {
    name: `${command}-${release.version}`,
    moduleDir: KUBE_COMPONENTS_DIR,
    ...(release.modFile === "go.mod" ? {} : { modFile: { mod: release.modFile, sum: release.sumFile } }),
    pkg: `k8s.io/kubernetes/cmd/${command}`,
    pinned: "k8s.io/kubernetes",
    versionVariables: kubernetesVersionVariables,
  };
}

function containerdTool(command: string, version: string): Target {
  return {
    name: `containerd-${version}/${command}`,
    moduleDir: CONTAINERD_DIR,
    pkg: `github.com/containerd/containerd/v2/cmd/${command}`,
    pinned: "github.com/containerd/containerd/v2",
    // containerd's Makefile stamps these; `containerd --version` and the CRI's runtime version report them.
    versionVariables: (v) => [`-X github.com/containerd/containerd/v2/version.Version=${v}`],
  };
}

function cniPlugin(path: string, version: string): Target {
  return {
    name: `cni-${version}/${path.replace(/^.*\//, "")}`,
    moduleDir: CNI_DIR,
    pkg: `github.com/containernetworking/plugins/plugins/${path}`,
    pinned: "github.com/containernetworking/plugins",
    versionVariables: (v) => [`-X github.com/containernetworking/plugins/pkg/utils/buildversion.BuildVersion=${v}`],
    env: { CGO_ENABLED: "0" },
  };
}

const PAUSE: Target = {
  name: "pause",
  moduleDir: join(REPO_ROOT, "infra", "local", "pause"),
  pkg: ".",
  pinned: "(none)",
  versionVariables: () => [],
  // Alone in its image: no libc to load.
  env: { CGO_ENABLED: "0" },
};

/** Debian's runc and iptables, installed when missing (as root; otherwise an error says what to install). */
async function ensureDebianTools(): Promise<string> {
  for (const [command, pkg] of [
    ["runc", "runc"],
    ["iptables", "iptables"],
  ] as const) {
    const found = await run("sh", ["-c", `command -v ${command}`]).then(
      () => true,
      () => false,
    );
    if (!found) await aptInstall(pkg);
  }
  return (await run("sh", ["-c", "command -v runc"])).stdout.trim();
}

/**
 * Builds (or finds built) every program of the local node for the Kubernetes version asked for (`1.30`, `v1.30.14`;
 * default `KUBE_VERSION`, then the newest pinned: kube-versions.ts) and returns their paths. Each build runs alone:
 * `go build` already uses every core.
 * @throws TypeError when the version is not pinned; Error when kube-components pins another Kubernetes than the API
 * server for that version, when a build fails, or when runc or iptables is missing and cannot be installed.
 */
export async function ensureNodeBinaries(requested = process.env.KUBE_VERSION): Promise<NodeBinaries> {
  const release = resolveKubeRelease(requested);
  const kubeVersion = release.version;
  const pinned = await pinnedVersion(kubeComponent("kubelet", release));
  if (pinned !== kubeVersion) {
    throw new Error(
      `infra/local/kube-components/${release.modFile} pins k8s.io/kubernetes ${pinned} but infra/local/apiserver/${release.modFile} pins ${kubeVersion}: pin the same release in both`,
    );
  }
  const goVersion = await prepareBuild();
  const containerdVersion = await pinnedVersion(containerdTool("containerd", ""));
  const cniVersion = await pinnedVersion(cniPlugin("main/bridge", ""));
  const build = (target: Target): Promise<string> => ensureBinary(target, goVersion);

  const kubelet = await build(kubeComponent("kubelet", release));
  const scheduler = await build(kubeComponent("kube-scheduler", release));
  const controllerManager = await build(kubeComponent("kube-controller-manager", release));
  for (const command of ["containerd", "containerd-shim-runc-v2", "ctr"])
    await build(containerdTool(command, containerdVersion));
  for (const plugin of ["main/bridge", "ipam/host-local", "main/loopback", "meta/portmap"])
    await build(cniPlugin(plugin, cniVersion));
  const pause = await build(PAUSE);
  const runc = await ensureDebianTools();
  return {
    kubelet,
    scheduler,
    controllerManager,
    containerdDir: join(BIN_DIR, `containerd-${containerdVersion}`),
    cniDir: join(BIN_DIR, `cni-${cniVersion}`),
    pause,
    runc,
    kubeVersion,
  };
}

if (import.meta.main) {
  const started = Date.now();
  const { values } = parseArgs({ options: { "kube-version": { type: "string" } } });
  const binaries = await ensureNodeBinaries(values["kube-version"] ?? process.env.KUBE_VERSION);
  process.stderr.write(`[build] node ready in ${Math.round((Date.now() - started) / 1000)} s\n`);
  console.log(JSON.stringify(binaries, null, 2));
}
