/**
 * The deployment files generated from infra/build/manifests/ (the kustomize bases' manifests and the Helm chart's files/)
 * are committed as `npm run manifests` writes them: rendered in memory here and compared with the files on disk.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CHART_PATH, renderGeneratedFiles } from "../../../infra/build/manifests/files.ts";
import { MANIFESTS_COMMAND } from "../../../infra/build/manifests/render.ts";
import { REPO_ROOT } from "../../../infra/build/repo-root.ts";

const generated = renderGeneratedFiles();

describe("generated deployment files", () => {
  it(`are current (run ${MANIFESTS_COMMAND} after editing infra/build/manifests/)`, async () => {
    const stale: string[] = [];
    for (const [path, text] of generated) {
      const committed = await readFile(join(REPO_ROOT, path), "utf8").catch(() => undefined);
      if (committed !== text) stale.push(path);
    }
    expect(stale, `stale or missing: run ${MANIFESTS_COMMAND} and commit the result`).toEqual([]);
  });

  it("fill the chart's files/ alone, so no manifest of the chart's own stands in for a generated one", async () => {
    const files = await readdir(join(REPO_ROOT, CHART_PATH, "files"), { recursive: true, withFileTypes: true });
    const onDisk = files.filter((f) => f.isFile()).map((f) => join(f.parentPath, f.name).slice(REPO_ROOT.length + 1));
    const expected = [...generated.keys()].filter((path) => path.startsWith(join(CHART_PATH, "files")));
    expect(onDisk.sort()).toEqual(expected.sort());
  });
});
