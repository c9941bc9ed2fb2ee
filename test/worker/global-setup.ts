/**
 * Bundles the Worker for each wrangler environment we deploy, exactly as `wrangler deploy` would
 * (`--dry-run --outdir`), so the tests run the real bundle inside workerd (through Miniflare).
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { FUNCTION_NAMES } from "../../shared/config/index.ts";

const run = promisify(execFile);
export const WORKER_ENVS = FUNCTION_NAMES;

export default async function setup(): Promise<void> {
  const env = { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" };
  await Promise.all(
    WORKER_ENVS.map((name) =>
      run("wrangler", ["deploy", "--dry-run", "--env", name, "--outdir", `.cache/worker/${name}`], { env }),
    ),
  );
}
