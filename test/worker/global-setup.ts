/**
 * Bundles the Worker for each wrangler environment we deploy, exactly as `wrangler deploy` would
 * (`--dry-run --outdir`), so the tests run the real bundle inside workerd (through Miniflare).
 */
import path from "node:path";
import { buildWorkerBundle } from "../../infra/build/cloudflare/bundle-size.ts";
import { REPO_ROOT } from "../../infra/build/repo-root.ts";
import { FUNCTION_NAMES } from "../../shared/config/index.ts";

export const WORKER_ENVS = FUNCTION_NAMES;

export default async function setup(): Promise<void> {
  await Promise.all(WORKER_ENVS.map((name) => buildWorkerBundle(name, path.join(REPO_ROOT, ".cache", "worker", name))));
}
