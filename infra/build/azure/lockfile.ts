/**
 * The Azure Functions package's package-lock.json, cut from the repository's: the one dependency the package keeps
 * (`@azure/functions`) and every package it needs, at the versions, places and integrity hashes the repository's
 * lock holds. `npm ci` in the package then installs what the repository's tests ran against, not what the registry
 * serves for a range on the day of the release, and refuses a tarball whose hash differs. No network: the
 * repository's lock is the whole input.
 */

/** One package of a lockfile's `packages` (lockfile v2 and v3), keyed by its folder (`node_modules/a/node_modules/b`). */
export interface LockEntry {
  name?: string;
  version?: string;
  resolved?: string;
  integrity?: string;
  link?: boolean;
  dev?: boolean;
  optional?: boolean;
  devOptional?: boolean;
  peer?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  [field: string]: unknown;
}

export interface PackageLock {
  name?: string;
  version?: string;
  lockfileVersion: number;
  requires?: boolean;
  packages: Record<string, LockEntry>;
}

/** The package a lock is cut for: its name, version and the one dependency it keeps. */
export interface LockRoot {
  name: string;
  version: string;
  dependency: string;
}

/**
 * The folder Node and npm load `name` from when `from` requires it: `from`'s own node_modules first, then each
 * enclosing one up to the top.
 */
function resolve(packages: Record<string, LockEntry>, from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const candidate = base === "" ? `node_modules/${name}` : `${base}/node_modules/${name}`;
    if (packages[candidate] !== undefined) return candidate;
    if (base === "") return undefined;
    const cut = base.lastIndexOf("/node_modules/");
    base = cut === -1 ? "" : base.slice(0, cut);
  }
}

/** The edges of one package: what it requires and whether a missing one is allowed. */
function edges(entry: LockEntry): { name: string; optional: boolean }[] {
  // An optional peer is installed only when something else requires it, which the walk finds by itself.
  const peers = Object.keys(entry.peerDependencies ?? {}).filter(
    (name) => entry.peerDependenciesMeta?.[name]?.optional !== true,
  );
  return [
    ...[...Object.keys(entry.dependencies ?? {}), ...peers].map((name) => ({ name, optional: false })),
    ...Object.keys(entry.optionalDependencies ?? {}).map((name) => ({ name, optional: true })),
  ];
}

/** The folders reachable from `start`, following optional edges only when `withOptional`. */
function reachable(packages: Record<string, LockEntry>, start: string, withOptional: boolean): Set<string> {
  const seen = new Set<string>();
  const queue = [start];
  for (let folder = queue.shift(); folder !== undefined; folder = queue.shift()) {
    if (seen.has(folder)) continue;
    seen.add(folder);
    const entry = packages[folder]!;
    if (entry.link === true)
      throw new Error(`${folder} is a link (a workspace): the lock cannot hold it for another package`);
    for (const edge of edges(entry)) {
      if (edge.optional && !withOptional) continue;
      const target = resolve(packages, folder, edge.name);
      if (target !== undefined) queue.push(target);
      // A platform's optional binary may be absent from the lock; a required package may not.
      else if (!edge.optional)
        throw new Error(`${folder} requires ${edge.name}, which the repository's package-lock.json does not hold`);
    }
  }
  return seen;
}

/**
 * The lock of a package `root.name` whose only dependency is `root.dependency`, pinned to the version `lock` holds.
 * Every package keeps its folder, so the cut tree resolves as the repository's did; the repository's `dev` and
 * `optional` markers are recomputed for the new root (everything here is a production dependency).
 * @throws Error when `lock` does not hold the dependency or one of the packages it requires.
 */
export function cutLock(lock: PackageLock, root: LockRoot): { version: string; lock: PackageLock } {
  if (lock.lockfileVersion < 2)
    throw new Error(
      `package-lock.json is lockfile v${lock.lockfileVersion}; v2 or later has the packages map this needs`,
    );
  const top = `node_modules/${root.dependency}`;
  const version = lock.packages[top]?.version;
  if (version === undefined) throw new Error(`the repository's package-lock.json does not hold ${root.dependency}`);
  const required = reachable(lock.packages, top, false);
  const all = reachable(lock.packages, top, true);
  const packages: Record<string, LockEntry> = {
    "": { name: root.name, version: root.version, dependencies: { [root.dependency]: version } },
  };
  for (const folder of [...all].sort()) {
    const { dev: _dev, devOptional: _devOptional, optional: _optional, peer: _peer, ...entry } = lock.packages[folder]!;
    packages[folder] = required.has(folder) ? entry : { ...entry, optional: true };
  }
  return { version, lock: { name: root.name, version: root.version, lockfileVersion: 3, requires: true, packages } };
}
