/**
 * The inside of a pod started by pod-sandbox.ts: `ip netns exec <ns> node pod-entry.ts <spec.json>`. `ip netns
 * exec` gives this process a mount namespace of its own (mounts here do not reach the host), where it mounts each
 * volume at the container's `mountPath` (read-only, as the kubelet mounts Secrets and projected tokens), then
 * runs the container's command with this environment and waits for it. A `mountPath` whose folders do not exist
 * on the host (`/var/run/secrets/kubernetes.io/serviceaccount`) gets them in an overlay of its nearest existing
 * folder, so the host's file system is never written.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";

/** What pod-sandbox.ts writes for one container. */
export interface PodEntrySpec {
  /** Folders on the host, mounted read-only at `mountPath`. */
  mounts: { source: string; mountPath: string }[];
  /** Scratch folder on the host for overlay upper and work folders. */
  overlayDir: string;
  command: string;
  args: string[];
  cwd: string;
  /** `mount` from util-linux. */
  mountCommand: string;
}

function nearestExisting(path: string): string {
  let current = path;
  while (!existsSync(current)) current = dirname(current);
  return realpathSync(current);
}

function mountVolumes(spec: PodEntrySpec): void {
  const mount = (args: string[]): void => void execFileSync(spec.mountCommand, args, { stdio: ["ignore", "inherit", "inherit"] });
  const overlaid = new Set<string>();
  for (const { source, mountPath } of spec.mounts) {
    if (!existsSync(mountPath)) {
      const base = nearestExisting(mountPath);
      if (base === "/") throw new Error(`cannot mount at ${mountPath}: its top-level folder does not exist on the host`);
      if (!overlaid.has(base)) {
        const layer = join(spec.overlayDir, String(overlaid.size));
        mkdirSync(join(layer, "upper"), { recursive: true });
        mkdirSync(join(layer, "work"), { recursive: true });
        mount(["-t", "overlay", "overlay", "-o", `lowerdir=${base},upperdir=${layer}/upper,workdir=${layer}/work`, base]);
        overlaid.add(base);
      }
      mkdirSync(mountPath, { recursive: true });
    }
    mount(["--bind", source, mountPath]);
    mount(["-o", "remount,bind,ro", mountPath]);
  }
}

const specFile = process.argv[2];
if (specFile === undefined) {
  console.error("usage: ip netns exec <ns> node pod-entry.ts <spec.json>");
  process.exit(2);
}
const spec = JSON.parse(readFileSync(specFile, "utf8")) as PodEntrySpec;
mountVolumes(spec);
const container = spawn(spec.command, spec.args, { stdio: "inherit", cwd: spec.cwd });
// The stop signal goes to the whole process group (processes.ts), the container included: wait for its exit.
for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(signal, () => {});
container.once("exit", (code, signal) => process.exit(code ?? (signal === null ? 1 : 128)));
