import { writeFile } from "node:fs/promises";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import {
  buildWorkerBundle,
  GZIP_LIMIT_BYTES,
  measureBundle,
  reportSizes,
  WORKER_ENVS,
  type BundleSize,
} from "../../../infra/build/cloudflare/bundle-size.ts";
import { tempDir } from "../../support/temp-dir.ts";

describe("measureBundle", () => {
  it("counts the modules, not source maps or wrangler's README", async () => {
    const dir = await tempDir("gmsa-bundle-size-");
    const code = "export default { fetch() { return new Response('ok'); } };\n".repeat(50);
    await writeFile(path.join(dir, "index.js"), code);
    await writeFile(path.join(dir, "index.js.map"), "{}".repeat(10_000));
    await writeFile(path.join(dir, "README.md"), "built by wrangler");
    const size = await measureBundle(dir);
    expect(size).toEqual({ files: ["index.js"], rawBytes: Buffer.byteLength(code), gzipBytes: gzipSync(code).length });
  });
});

describe("reportSizes", () => {
  const size = (gzipBytes: number): BundleSize => ({ files: ["index.js"], rawBytes: gzipBytes * 4, gzipBytes });
  const report = (sizes: Record<string, BundleSize>) => reportSizes(new Map(Object.entries(sizes)));

  it("passes when every Worker is within the budget and prints raw and gzip sizes", () => {
    const { lines, ok } = report({ expand: size(GZIP_LIMIT_BYTES), authorize: size(1024) });
    expect(ok).toBe(true);
    expect(lines[0]).toBe("expand: 600.0 KiB raw, 150.0 KiB gzip (614400 / 153600 bytes) ok");
  });

  it("fails when one Worker is over the budget, naming it", () => {
    const { lines, ok } = report({ expand: size(1024), authorize: size(GZIP_LIMIT_BYTES + 1) });
    expect(ok).toBe(false);
    expect(lines[1]).toMatch(/^authorize: .* OVER the 150\.0 KiB budget$/);
  });

  it("fails when an output folder holds no module", () => {
    expect(report({ expand: { files: [], rawBytes: 0, gzipBytes: 0 } }).ok).toBe(false);
  });
});

describe("the Worker bundles wrangler would deploy", () => {
  it.each(WORKER_ENVS)("keep env %s under 150 KiB gzipped", async (env) => {
    const outdir = await tempDir(`gmsa-bundle-${env}-`);
    await buildWorkerBundle(env, outdir);
    const size = await measureBundle(outdir);
    expect(size.files).toEqual(["index.js"]);
    expect(size.gzipBytes).toBeLessThanOrEqual(GZIP_LIMIT_BYTES);
  });
});
