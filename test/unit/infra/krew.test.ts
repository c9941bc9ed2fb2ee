import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { checkKrewRelease, renderKrewManifest, type KrewRelease } from "../../../infra/build/krew/render.ts";

const RELEASE: KrewRelease = {
  version: "0.1.0",
  uri: "https://example.com/kubectl-gmsa-0.1.0.tar.gz",
  sha256: "a".repeat(64),
  homepage: "https://example.com/gmsa-webhooks",
};

interface KrewPlugin {
  spec: { shortDescription: string; description: string; platforms: { selector: object; files: object[] }[] };
}

describe("infra/build/krew/gmsa.yaml", () => {
  it("renders to a krew v1alpha2 Plugin named gmsa, every placeholder filled", async () => {
    const text = await renderKrewManifest(RELEASE);
    expect(text).not.toMatch(/\{\{/);
    const plugin = parse(text) as KrewPlugin;
    expect(plugin).toMatchObject({
      apiVersion: "krew.googlecontainertools.github.com/v1alpha2",
      kind: "Plugin",
      metadata: { name: "gmsa" },
      spec: { version: "v0.1.0", homepage: RELEASE.homepage },
    });
    // krew-index limits: a one-line short description under 64 characters, and a description.
    expect(plugin.spec.shortDescription.length).toBeLessThan(64);
    expect(plugin.spec.description.length).toBeGreaterThan(0);
    expect(plugin.spec.platforms.length).toBeGreaterThan(0);
    for (const platform of plugin.spec.platforms) {
      expect(platform).toMatchObject({ uri: RELEASE.uri, sha256: RELEASE.sha256, bin: "kubectl-gmsa" });
      expect(platform.selector).toEqual({
        matchExpressions: [{ key: "os", operator: "In", values: ["linux", "darwin"] }],
      });
      // The bin must be one of the files krew copies out of the archive.
      expect(platform.files).toContainEqual({ from: "kubectl-gmsa", to: "." });
    }
  });

  it.each([
    [{ version: "v0.1.0" }, 'version "v0.1.0" is not semver (1.2.3, no "v")'],
    [{ uri: "http://example.com/a.tar.gz" }, "uri must be an https URL"],
    [{ sha256: "ABC" }, "sha256 must be 64 lower-case hex digits"],
  ])("refuses %j", async (change, problem) => {
    expect(checkKrewRelease({ ...RELEASE, ...change })).toEqual([problem]);
    await expect(renderKrewManifest({ ...RELEASE, ...change })).rejects.toThrow(problem);
  });
});
