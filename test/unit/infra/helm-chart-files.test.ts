/**
 * The Helm chart and the kustomize bases share one source for the CRD, the RBAC rules and the webhook rules: the
 * chart's files/ holds byte-identical copies of infra/crd, infra/rbac and infra/webhooks (a chart cannot read
 * outside its folder), and its templates take those parts from the copies only. A changed source fails here
 * until `node infra/helm/chart-files.ts` copies it again; test/e2e/helm-chart.test.ts compares the rendered
 * objects of both.
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CHART_DIR, SHARED_MANIFESTS, staleChartFiles } from "../../../infra/helm/chart-files.ts";

async function filesUnder(dir: string, prefix = ""): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map(async (entry) =>
      entry.isDirectory() ? filesUnder(join(dir, entry.name), `${prefix}${entry.name}/`) : [`${prefix}${entry.name}`],
    ),
  );
  return nested.flat().sort();
}

describe("infra/helm/gmsa-webhooks/files", () => {
  it("holds byte-identical copies of the manifests shared with the kustomize bases (run node infra/helm/chart-files.ts)", async () => {
    expect(await staleChartFiles()).toEqual([]);
  });
  it("holds nothing but those copies, so no manifest of the chart's own can stand in for a shared one", async () => {
    expect(await filesUnder(join(CHART_DIR, "files"))).toEqual([...SHARED_MANIFESTS].sort());
  });
});
