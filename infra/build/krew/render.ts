/**
 * Fills infra/build/krew/gmsa.yaml for a release: `node infra/build/krew/render.ts --version 1.2.3 --uri <archive URL>
 * --sha256 <hex> --homepage <URL>` prints the manifest to submit to krew-index (or to serve from a custom index).
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { REPO_ROOT } from "../repo-root.ts";

/** What a release gives the manifest. */
export interface KrewRelease {
  /** Semantic version without the leading "v", as package.json holds it. */
  version: string;
  /** https URL of the .tar.gz holding `kubectl-gmsa`. */
  uri: string;
  /** SHA-256 of that archive, 64 hex digits. */
  sha256: string;
  /** The project's https home page. */
  homepage: string;
}

export const KREW_TEMPLATE = path.join(REPO_ROOT, "infra/build/krew/gmsa.yaml");

/** Every way `release` would make a manifest krew refuses. */
export function checkKrewRelease(release: KrewRelease): string[] {
  const problems: string[] = [];
  if (!/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/.test(release.version))
    problems.push(`version ${JSON.stringify(release.version)} is not semver (1.2.3, no "v")`);
  for (const key of ["uri", "homepage"] as const)
    if (!/^https:\/\/\S+$/.test(release[key])) problems.push(`${key} must be an https URL`);
  if (!/^[0-9a-f]{64}$/.test(release.sha256)) problems.push("sha256 must be 64 lower-case hex digits");
  return problems;
}

/**
 * The manifest for `release`.
 * @throws Error naming every problem with the release's values.
 */
export async function renderKrewManifest(release: KrewRelease, template = KREW_TEMPLATE): Promise<string> {
  const problems = checkKrewRelease(release);
  if (problems.length > 0) throw new Error(`krew manifest: ${problems.join("; ")}`);
  const values: Record<string, string> = {
    VERSION: release.version,
    URI: release.uri,
    SHA256: release.sha256,
    HOMEPAGE: release.homepage,
  };
  return (await readFile(template, "utf8")).replace(
    /\{\{([A-Z0-9]+)\}\}/g,
    (_, name: string) => values[name] ?? `{{${name}}}`,
  );
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      version: { type: "string" },
      uri: { type: "string" },
      sha256: { type: "string" },
      homepage: { type: "string" },
    },
  });
  process.stdout.write(
    await renderKrewManifest({
      version: values.version ?? "",
      uri: values.uri ?? "",
      sha256: values.sha256 ?? "",
      homepage: values.homepage ?? "",
    }),
  );
}
