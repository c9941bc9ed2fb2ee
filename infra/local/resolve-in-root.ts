/**
 * Paths inside a container's root file system, seen from the host: what pod-entry.ts mounts volumes at.
 */
import { lstatSync, readlinkSync } from "node:fs";
import { join } from "node:path";

/** Symbolic links followed before giving up, as Linux does (`MAXSYMLINKS`). */
const MAX_LINKS = 40;

/**
 * Where `path` of the container is on the host side: symbolic links resolved inside `root`, as a chroot would
 * (`/var/run` is a link to `/run`; followed naively it would lead out of the root, onto the host's own `/run`).
 * Components that do not exist yet are kept as written (the caller creates them).
 * @throws Error after {@link MAX_LINKS} links (a loop).
 */
export function resolveInRoot(root: string, path: string): string {
  const pending = path.split("/").filter(Boolean);
  let resolved: string[] = [];
  for (let links = 0; pending.length > 0; ) {
    const name = pending.shift()!;
    if (name === ".") continue;
    if (name === "..") {
      resolved.pop();
      continue;
    }
    const candidate = join(root, ...resolved, name);
    if (lstatSync(candidate, { throwIfNoEntry: false })?.isSymbolicLink() !== true) {
      resolved.push(name);
      continue;
    }
    if (++links > MAX_LINKS) throw new Error(`too many symbolic links in ${path}`);
    const target = readlinkSync(candidate);
    if (target.startsWith("/")) resolved = [];
    pending.unshift(...target.split("/").filter(Boolean));
  }
  return join(root, ...resolved);
}
