import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { resolveInRoot } from "../../../infra/local/resolve-in-root.ts";

const root = mkdtempSync(join(tmpdir(), "gmsa-root-"));
mkdirSync(join(root, "run"));
mkdirSync(join(root, "etc", "ssl"), { recursive: true });
symlinkSync("/run", join(root, "var-run"));
mkdirSync(join(root, "var"));
symlinkSync("/run", join(root, "var", "run"));
symlinkSync("../etc/ssl", join(root, "var", "ssl"));
symlinkSync("/loop-b", join(root, "loop-a"));
symlinkSync("/loop-a", join(root, "loop-b"));

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("resolveInRoot", () => {
  it("follows an absolute link from the container's root, never the host's", () => {
    expect(resolveInRoot(root, "/var/run/secrets/kubernetes.io/serviceaccount")).toBe(join(root, "run", "secrets", "kubernetes.io", "serviceaccount"));
  });

  it("follows a relative link from the link's folder", () => {
    expect(resolveInRoot(root, "/var/ssl/certs")).toBe(join(root, "etc", "ssl", "certs"));
  });

  it("keeps missing folders as written, and `..` never climbs above the root", () => {
    expect(resolveInRoot(root, "/tls")).toBe(join(root, "tls"));
    expect(resolveInRoot(root, "/../../tls/./x")).toBe(join(root, "tls", "x"));
  });

  it("refuses a loop of links", () => {
    expect(() => resolveInRoot(root, "/loop-a/x")).toThrow(/too many symbolic links/);
  });
});
