/**
 * Bundles the Worker for each wrangler environment we deploy, exactly as `wrangler deploy` would
 * (`--dry-run --outdir`), so the tests run the real bundle inside workerd (through Miniflare).
 */
import path from "node:path";
import { buildWorkerBundle, WORKER_ENVS } from "../../infra/build/cloudflare/bundle-size.ts";
import { REPO_ROOT } from "../../infra/build/repo-root.ts";

export default async function setup(): Promise<void> {
  await Promise.all(WORKER_ENVS.map((name) => buildWorkerBundle(name, path.join(REPO_ROOT, ".cache", "worker", name))));
}
