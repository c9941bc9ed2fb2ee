/**
 * Builds each Worker exactly as `wrangler deploy --env <env>` would upload it (`--dry-run --outdir`) and measures
 * it: raw bytes and gzip bytes (node:zlib, default level), the figure Cloudflare's size limits and our budget use.
 */
import { execFile } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { FUNCTION_NAMES } from "../../../shared/config/index.ts";
import { nodeBinary } from "../tools/node-binary.ts";
import { REPO_ROOT } from "../repo-root.ts";

const run = promisify(execFile);
const WRANGLER = path.join(REPO_ROOT, "node_modules", "wrangler", "bin", "wrangler.js");

/** No telemetry and no request for the `cf` object from any wrangler or Miniflare we run (docs/development.md, Toolchain). */
export const WRANGLER_OFFLINE_ENV = { WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" } as const;

/** The wrangler environments we deploy, one Worker each (wrangler.toml). */
export const WORKER_ENVS = FUNCTION_NAMES;
export type WorkerEnv = (typeof WORKER_ENVS)[number];

/** Our budget per Worker, gzipped: start-up parses the whole bundle on every cold isolate. */
export const GZIP_LIMIT_BYTES = 150 * 1024;

/** What was measured in one output folder. */
export interface BundleSize {
  /** Module files counted (source maps and wrangler's README excluded). */
  files: string[];
  rawBytes: number;
  /** Sum over the modules, each gzipped on its own. */
  gzipBytes: number;
}

/** Options of {@link buildWorkerBundle}. */
export interface WorkerBundleOptions {
  /** wrangler's environment, {@link WRANGLER_OFFLINE_ENV} laid over it. Default: this process's. */
  env?: NodeJS.ProcessEnv;
}

/**
 * Runs `wrangler deploy --dry-run --env <env> --outdir <outdir>` (any environment of wrangler.toml) from the repository root with the project's
 * wrangler and Node 24, with no network beyond what wrangler needs locally (about 4 s).
 * @returns the bundle's entry module, `<outdir>/index.js`.
 * @throws Error with wrangler's output when it fails.
 */
export async function buildWorkerBundle(
  env: string,
  outdir: string,
  options: WorkerBundleOptions = {},
): Promise<string> {
  const childEnv = { ...(options.env ?? process.env), ...WRANGLER_OFFLINE_ENV };
  try {
    await run(nodeBinary(), [WRANGLER, "deploy", "--dry-run", "--env", env, "--outdir", outdir], {
      cwd: REPO_ROOT,
      env: childEnv,
    });
  } catch (error) {
    const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string };
    throw new Error(`wrangler deploy --dry-run --env ${env} failed:\n${stdout}${stderr}`, { cause: error });
  }
  return path.join(outdir, "index.js");
}

/** Measures the modules (.js, .mjs, .cjs, .wasm) in `dir`. */
export async function measureBundle(dir: string): Promise<BundleSize> {
  const files = (await readdir(dir)).filter((file) => /\.(m?js|cjs|wasm)$/.test(file)).sort();
  let rawBytes = 0;
  let gzipBytes = 0;
  for (const file of files) {
    const bytes = await readFile(path.join(dir, file));
    rawBytes += bytes.length;
    gzipBytes += gzipSync(bytes).length;
  }
  return { files, rawBytes, gzipBytes };
}

const kib = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KiB`;

/** One report line per Worker, and whether every Worker is within `limitBytes` gzipped. */
export function reportSizes(
  sizes: ReadonlyMap<string, BundleSize>,
  limitBytes = GZIP_LIMIT_BYTES,
): { lines: string[]; ok: boolean } {
  let ok = sizes.size > 0;
  const lines = [...sizes].map(([env, size]) => {
    const over = size.gzipBytes > limitBytes;
    if (over || size.files.length === 0) ok = false;
    const verdict = size.files.length === 0 ? "NO MODULES FOUND" : over ? `OVER the ${kib(limitBytes)} budget` : "ok";
    return `${env}: ${kib(size.rawBytes)} raw, ${kib(size.gzipBytes)} gzip (${size.rawBytes} / ${size.gzipBytes} bytes) ${verdict}`;
  });
  return { lines, ok };
}
