/**
 * `npm run bundle-check`: builds both Workers as `wrangler deploy` would (into .cache/bundle/<env>), prints each
 * bundle's raw and gzipped size and exits 1 if either is over 150 KiB gzipped.
 */
import path from "node:path";
import { REPO_ROOT } from "../repo-root.ts";
import { buildWorkerBundle, measureBundle, reportSizes, WORKER_ENVS, type BundleSize } from "./bundle-size.ts";

const sizes = new Map<string, BundleSize>();
for (const env of WORKER_ENVS) {
  const outdir = path.join(REPO_ROOT, ".cache", "bundle", env);
  await buildWorkerBundle(env, outdir);
  sizes.set(env, await measureBundle(outdir));
}
const { lines, ok } = reportSizes(sizes);
for (const line of lines) console.log(line);
if (!ok) {
  console.error(
    "bundle-check failed: see infra/deploy/cloudflare/README.md (Bundle size) for what makes the bundle big.",
  );
  process.exitCode = 1;
}
