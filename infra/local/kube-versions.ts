/**
 * The Kubernetes versions the local cluster can run. Each is one module file in infra/local/apiserver pinning a
 * k8s.io/kubernetes release: `go.mod` the default (the newest release), `kube-<minor>.mod` (with its
 * `kube-<minor>.sum`) each older one, built with `go build -modfile`. A minor version (`1.30`) resolves to the patch
 * release its file pins; `KUBE_VERSION` or `npm run dev -- --kube-version` picks one.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "../build/repo-root.ts";

/** The module folder of kube-apiserver: main.go and one module file per version. */
export const APISERVER_MODULE_DIR = join(REPO_ROOT, "infra", "local", "apiserver");

/** One pinned kube-apiserver release. */
export interface KubeRelease {
  /** The k8s.io/kubernetes version, e.g. `v1.30.14`. */
  version: string;
  /** `1.30`. */
  minor: string;
  /** Module file in {@link APISERVER_MODULE_DIR}: `go.mod` or `kube-1.30.mod`. */
  modFile: string;
  /** Its checksums: `go.sum` or `kube-1.30.sum`. */
  sumFile: string;
}

/**
 * The minor version of `version` (`v1.30.14`, `1.30`): `1.30`.
 * @throws TypeError when it is not a Kubernetes version.
 */
export function minorOf(version: string): string {
  const match = /^v?(\d+)\.(\d+)(?:\.\d+)?$/.exec(version.trim());
  if (!match) throw new TypeError(`not a Kubernetes version: "${version}" (expected e.g. 1.30 or v1.30.14)`);
  return `${match[1]}.${match[2]}`;
}

/** Compares two `major.minor` strings numerically. */
function compareMinor(a: string, b: string): number {
  const [aMajor, aMinor] = a.split(".").map(Number) as [number, number];
  const [bMajor, bMinor] = b.split(".").map(Number) as [number, number];
  return aMajor - bMajor || aMinor - bMinor;
}

function readRelease(modFile: string): KubeRelease {
  const text = readFileSync(join(APISERVER_MODULE_DIR, modFile), "utf8");
  const version = /^\s*(?:require\s+)?k8s\.io\/kubernetes\s+(v\S+)/m.exec(text)?.[1];
  if (version === undefined) throw new Error(`infra/local/apiserver/${modFile} pins no k8s.io/kubernetes version`);
  return { version, minor: minorOf(version), modFile, sumFile: modFile.replace(/\.mod$/, ".sum") };
}

let releases: KubeRelease[] | undefined;

/** Every pinned release, newest first; the first is the default. */
export function kubeReleases(): KubeRelease[] {
  releases ??= (() => {
    const extra = readdirSync(APISERVER_MODULE_DIR).filter((file) => /^kube-\d+\.\d+\.mod$/.test(file));
    const [defaultRelease, ...others] = ["go.mod", ...extra].map(readRelease);
    return [defaultRelease!, ...others.sort((a, b) => compareMinor(b.minor, a.minor))];
  })();
  return releases;
}

/** The release CI runs the whole e2e tier on, and the default of the local cluster. */
export function defaultKubeRelease(): KubeRelease {
  return kubeReleases()[0]!;
}

/** The oldest release pinned: the floor CI proves with the version-dependent e2e files. */
export function floorKubeRelease(): KubeRelease {
  return kubeReleases().at(-1)!;
}

/**
 * The release for `requested` (`1.30`, `v1.30`, `1.30.14`), default {@link defaultKubeRelease} when it is
 * undefined or empty.
 * @throws TypeError naming the pinned versions when none matches (a patch release other than the pinned one included).
 */
export function resolveKubeRelease(requested: string | undefined): KubeRelease {
  if (requested === undefined || requested.trim() === "") return defaultKubeRelease();
  const minor = minorOf(requested);
  const release = kubeReleases().find((r) => r.minor === minor);
  const patchGiven = /^v?\d+\.\d+\.\d+$/.test(requested.trim());
  if (release === undefined || (patchGiven && `v${requested.trim().replace(/^v/, "")}` !== release.version)) {
    const pinned = kubeReleases()
      .map((r) => r.version)
      .join(", ");
    throw new TypeError(
      `Kubernetes ${requested} is not pinned in infra/local/apiserver (pinned: ${pinned}); see docs/development.md`,
    );
  }
  return release;
}

/** Whether a server of `version` (`v1.30.14`, as /version reports it) is `minor` or newer. */
export function kubeAtLeast(version: string, minor: string): boolean {
  return compareMinor(minorOf(version), minor) >= 0;
}

/**
 * Where a kube-apiserver feature the stack or a test relies on appeared, by name: the first minor version that has
 * it in the form used here. Tests that need one are named "needs Kubernetes >= <minor>" so an older run says so.
 */
export const KUBE_FEATURES = {
  /**
   * `apiserver.config.k8s.io/v1` AuthenticationConfiguration (structured authentication GA, KEP-3331). 1.30 to 1.33
   * read the same JWT authenticator as `v1beta1`.
   */
  authenticationConfigurationV1: "1.34",
  /**
   * The kubelet's `failCgroupV1` setting (KubeletConfiguration v1beta1, 1.31 on). From 1.35 the kubelet refuses cgroup
   * v1 unless it is `false`; 1.30 knows no such field and runs on cgroup v1 as it is.
   */
  kubeletFailCgroupV1: "1.31",
} as const;

/** The `--authentication-config` file's apiVersion for a server of `version`. */
export function authenticationConfigurationApiVersion(version: string): string {
  return kubeAtLeast(version, KUBE_FEATURES.authenticationConfigurationV1)
    ? "apiserver.config.k8s.io/v1"
    : "apiserver.config.k8s.io/v1beta1";
}
