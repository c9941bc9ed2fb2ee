/**
 * The manifests the Helm chart shares with the kustomize bases: infra/crd, infra/rbac,
 * infra/webhooks and infra/policy are the one source; the chart cannot read outside its folder (`.Files.Get`), so it
 * carries byte-identical copies in infra/helm/gmsa-webhooks/files/, and its templates take the CRD,
 * the RBAC rules, the webhooks' rules, namespaceSelector and matchConditions, and the optional
 * ValidatingAdmissionPolicy from them, never from text of their own. A unit test fails when a copy differs from its source.
 *
 * CLI: `node infra/helm/chart-files.ts` rewrites the copies after an edit of the sources.
 */
import { copyFile, mkdir, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { REPO_ROOT } from "../repo-root.ts";

/** Paths under infra/ of the shared manifests; each is copied to the chart's files/ under the same path. */
export const SHARED_MANIFESTS = [
  "crd/gmsacredentialspecs.yaml",
  "rbac/expand.yaml",
  "rbac/authorize.yaml",
  "webhooks/expand.yaml",
  "webhooks/authorize.yaml",
  "policy/policy.yaml",
  "policy/binding.yaml",
] as const;

/** The chart's folder. */
export const CHART_DIR = join(REPO_ROOT, "infra", "helm", "gmsa-webhooks");

/** Absolute paths of one shared manifest: its source under infra/ and its copy in the chart. */
export function sharedManifestPaths(path: (typeof SHARED_MANIFESTS)[number]): { source: string; copy: string } {
  return { source: join(REPO_ROOT, "infra", path), copy: join(CHART_DIR, "files", path) };
}

/** The shared manifests whose copy in the chart is missing or differs from the source. */
export async function staleChartFiles(): Promise<string[]> {
  const stale: string[] = [];
  for (const path of SHARED_MANIFESTS) {
    const { source, copy } = sharedManifestPaths(path);
    const [want, have] = await Promise.all([readFile(source), readFile(copy).catch(() => undefined)]);
    if (!have?.equals(want)) stale.push(path);
  }
  return stale;
}

if (import.meta.main) {
  for (const path of SHARED_MANIFESTS) {
    const { source, copy } = sharedManifestPaths(path);
    await mkdir(dirname(copy), { recursive: true });
    await copyFile(source, copy);
  }
  console.log(`copied ${SHARED_MANIFESTS.length} manifests into ${join("infra", "helm", "gmsa-webhooks", "files")}`);
}
