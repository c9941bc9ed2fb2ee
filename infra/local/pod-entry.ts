/**
 * The inside of a pod started by pod-sandbox.ts: `ip netns exec <ns> node pod-entry.ts <spec.json>`. `ip netns
 * exec` gives this process a mount namespace of its own, so nothing mounted here reaches the host. It builds the
 * container's root file system as an overlay of the host's `/` (writes go to a tmpfs; read-only when the container
 * asks for `readOnlyRootFilesystem`), mounts each volume read-only at its `mountPath` (`/tls`, the service account's
 * `/var/run/secrets/kubernetes.io/serviceaccount`) as the kubelet would, then runs the container's command chrooted
 * there, as the container's user, and waits for it.
 */
import { execFileSync, spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { resolveInRoot } from "./resolve-in-root.ts";

/** What pod-sandbox.ts writes for one container. */
export interface PodEntrySpec {
  /** Folders on the host, mounted read-only at `mountPath` in the container. */
  mounts: { source: string; mountPath: string }[];
  /** Scratch folder on the host: the root file system and its writable layer are mounted under it. */
  scratchDir: string;
  command: string;
  args: string[];
  /** `runAsUser` and `runAsGroup`; default root. */
  user?: { uid: number; gid: number };
  readOnlyRootFilesystem: boolean;
  /** util-linux's `mount` and coreutils' `chroot`. */
  mountCommand: string;
  chrootCommand: string;
}

/** Mounts the root file system and the volumes; returns the root's path on the host side. */
function buildRoot(spec: PodEntrySpec): string {
  const mount = (args: string[]): void => void execFileSync(spec.mountCommand, args, { stdio: ["ignore", "inherit", "inherit"] });
  const layer = join(spec.scratchDir, "layer");
  const root = join(spec.scratchDir, "rootfs");
  mkdirSync(layer, { recursive: true });
  mkdirSync(root, { recursive: true });
  // On a tmpfs, so the writable layer is neither on the host's disk nor inside the lower layer's file system.
  mount(["-t", "tmpfs", "tmpfs", layer]);
  mkdirSync(join(layer, "upper"));
  mkdirSync(join(layer, "work"));
  mount(["-t", "overlay", "overlay", "-o", `lowerdir=/,upperdir=${layer}/upper,workdir=${layer}/work`, root]);
  // An overlay does not show the lower layer's own mounts: the kernel's file systems come back by bind mount.
  for (const system of ["/proc", "/sys", "/dev"]) mount(["--rbind", system, join(root, system)]);
  if (spec.user !== undefined) letOthersEnter(root, [spec.command, ...spec.args]);
  for (const { source, mountPath } of spec.mounts) {
    const target = resolveInRoot(root, mountPath);
    mkdirSync(target, { recursive: true });
    mount(["--bind", source, target]);
    mount(["-o", "remount,bind,ro", target]);
  }
  if (spec.readOnlyRootFilesystem) mount(["-o", "remount,ro", root]);
  return root;
}

/**
 * The host files a container runs (the checkout's `node`, its entry) may sit under a folder only its owner can enter
 * (`mktemp -d` makes them 0700), which the container's user could not pass. In the container's view only, every
 * folder above them gets execute permission for others, as an image grants its user; the change lands in the
 * overlay's tmpfs layer, the host's folders stay as they are.
 */
function letOthersEnter(root: string, paths: string[]): void {
  for (const path of paths) {
    if (!path.startsWith("/") || !existsSync(path)) continue;
    for (let dir = dirname(path); dir !== "/"; dir = dirname(dir)) {
      const inRoot = resolveInRoot(root, dir);
      const mode = statSync(inRoot).mode & 0o7777;
      if ((mode & 0o001) === 0) chmodSync(inRoot, mode | 0o001);
    }
  }
}

const specFile = process.argv[2];
if (specFile === undefined) {
  console.error("usage: ip netns exec <ns> node pod-entry.ts <spec.json>");
  process.exit(2);
}
const spec = JSON.parse(readFileSync(specFile, "utf8")) as PodEntrySpec;
const root = buildRoot(spec);
const userspec = spec.user === undefined ? [] : [`--userspec=${spec.user.uid}:${spec.user.gid}`];
const container = spawn(spec.chrootCommand, [...userspec, root, spec.command, ...spec.args], { stdio: "inherit" });
// The stop signal goes to the whole process group (processes.ts), the container included: wait for its exit.
for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(signal, () => {});
container.once("exit", (code, signal) => process.exit(code ?? (signal === null ? 1 : 128)));
