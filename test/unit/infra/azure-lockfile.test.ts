/**
 * infra/build/azure/lockfile.ts cuts the Azure package's lock from the repository's: the dependency and what it needs, from
 * the folders Node would load them from, with the repository's versions and hashes and markers for the new root.
 */
import { describe, expect, it } from "vitest";
import { cutLock, type LockEntry, type PackageLock } from "../../../infra/build/azure/lockfile.ts";

const ROOT = { name: "app", version: "1.0.0", dependency: "@scope/lib" };

function entry(version: string, fields: Partial<LockEntry> = {}): LockEntry {
  return { version, integrity: `sha512-${version}`, dev: true, ...fields };
}

function lockOf(packages: Record<string, LockEntry>): PackageLock {
  return {
    name: "repo",
    version: "0.0.1",
    lockfileVersion: 3,
    requires: true,
    packages: { "": { name: "repo" }, ...packages },
  };
}

describe("cutLock", () => {
  it("pins the dependency to the lock's version and keeps what it needs, nested copies before hoisted ones", () => {
    const { version, lock } = cutLock(
      lockOf({
        "node_modules/@scope/lib": entry("2.3.4", { dependencies: { a: "^1.0.0", b: "^0.7.0" } }),
        "node_modules/@scope/lib/node_modules/b": entry("0.7.2"),
        "node_modules/a": entry("1.1.0", { dependencies: { c: "*" } }),
        "node_modules/b": entry("1.1.1"),
        "node_modules/c": entry("3.0.0"),
        "node_modules/unrelated": entry("9.9.9", { dev: false }),
      }),
      ROOT,
    );
    expect(version).toBe("2.3.4");
    expect(lock).toMatchObject({ name: "app", version: "1.0.0", lockfileVersion: 3 });
    expect(Object.keys(lock.packages)).toEqual([
      "",
      "node_modules/@scope/lib",
      "node_modules/@scope/lib/node_modules/b",
      "node_modules/a",
      "node_modules/c",
    ]);
    expect(lock.packages[""]).toEqual({ name: "app", version: "1.0.0", dependencies: { "@scope/lib": "2.3.4" } });
    expect(lock.packages["node_modules/@scope/lib/node_modules/b"]).toEqual({
      version: "0.7.2",
      integrity: "sha512-0.7.2",
    });
  });

  it("marks optional only what is reached through optional dependencies alone", () => {
    const { lock } = cutLock(
      lockOf({
        "node_modules/@scope/lib": entry("1.0.0", {
          dependencies: { a: "*" },
          optionalDependencies: { native: "*", a: "*", missing: "*" },
        }),
        "node_modules/a": entry("1.0.0", { optional: true }),
        "node_modules/native": entry("1.0.0", { devOptional: true }),
      }),
      ROOT,
    );
    expect(lock.packages["node_modules/a"]).toEqual({ version: "1.0.0", integrity: "sha512-1.0.0" });
    expect(lock.packages["node_modules/native"]).toEqual({
      version: "1.0.0",
      integrity: "sha512-1.0.0",
      optional: true,
    });
    expect(lock.packages["node_modules/missing"]).toBeUndefined();
  });

  it("follows required peers and leaves optional ones out", () => {
    const { lock } = cutLock(
      lockOf({
        "node_modules/@scope/lib": entry("1.0.0", {
          peerDependencies: { peer: "*", maybe: "*" },
          peerDependenciesMeta: { maybe: { optional: true } },
        }),
        "node_modules/peer": entry("1.0.0", { peer: true }),
        "node_modules/maybe": entry("1.0.0"),
      }),
      ROOT,
    );
    expect(Object.keys(lock.packages)).toEqual(["", "node_modules/@scope/lib", "node_modules/peer"]);
  });

  it("refuses a lock without the dependency, or without a package it requires", () => {
    expect(() => cutLock(lockOf({}), ROOT)).toThrow("does not hold @scope/lib");
    expect(() =>
      cutLock(lockOf({ "node_modules/@scope/lib": entry("1.0.0", { dependencies: { gone: "*" } }) }), ROOT),
    ).toThrow("requires gone");
    expect(() => cutLock({ ...lockOf({}), lockfileVersion: 1 }, ROOT)).toThrow("lockfile v1");
  });
});
