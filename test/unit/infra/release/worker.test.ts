/** A Worker's source map in a release names repository paths, not the folder it was built in (infra/build/release/worker.ts). */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { relativizeSourceMap } from "../../../../infra/build/release/worker.ts";
import { tempDir } from "../../../support/temp-dir.ts";

describe("relativizeSourceMap", () => {
  it("rewrites wrangler's out-folder-relative sources under an absolute sourceRoot to repository paths", async () => {
    const repo = await tempDir("repo-");
    const out = await tempDir("worker-out-");
    const map = path.join(out, "index.js.map");
    const fromOut = path.relative(out, path.join(repo, "node_modules", "hono", "index.js"));
    await writeFile(
      map,
      JSON.stringify({
        version: 3,
        sources: [fromOut, path.relative(out, path.join(repo, "functions", "app.ts"))],
        sourceRoot: out,
        mappings: "AAAA",
      }),
    );
    await relativizeSourceMap(map, repo);
    const rewritten = JSON.parse(await readFile(map, "utf8")) as {
      sources: string[];
      sourceRoot: string;
      mappings: string;
    };
    expect(rewritten.sources).toEqual(["node_modules/hono/index.js", "functions/app.ts"]);
    expect(rewritten.sourceRoot).toBe("");
    expect(rewritten.mappings).toBe("AAAA");
  });
});
