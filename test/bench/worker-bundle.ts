/** Section A, Workers: bundle sizes, and workerd start-up to the first `/healthz` (whose request builds the app). */
import { generateKeyPairSync } from "node:crypto";
import { dirname, join } from "node:path";
import { Log, LogLevel, Miniflare } from "miniflare";
import { unstable_getMiniflareWorkerOptions } from "wrangler";
import { buildWorkerBundle, measureBundle } from "../../infra/build/cloudflare/bundle-size.ts";
import type { FunctionName } from "../../shared/config/index.ts";
import { oneContextKubeconfig } from "./cold-start.ts";
import { summarizeEach, type Summary } from "./percentiles.ts";

/** One Worker's bundle as `wrangler deploy` would upload it (infra/build/cloudflare/bundle-size.ts measures it). */
export interface BundleSize {
  fn: FunctionName;
  scriptPath: string;
  rawBytes: number;
  /** Each module gzipped on its own and summed, as `npm run bundle-check` counts. */
  gzipBytes: number;
}

export async function measureWorkerBundle(dir: string, fn: FunctionName): Promise<BundleSize> {
  const outdir = join(dir, `bundle-${fn}`);
  const scriptPath = await buildWorkerBundle(fn, outdir);
  const { rawBytes, gzipBytes } = await measureBundle(outdir);
  return { fn, scriptPath, rawBytes, gzipBytes };
}

/** Start-up figures over several cold starts, in milliseconds. */
export interface WorkerStartup {
  fn: FunctionName;
  /** `new Miniflare()` until `ready` (workerd up, script loaded). */
  readyMs: Summary;
  /** The first `/healthz` after ready: isolate's first request, builds the app. */
  firstRequestMs: Summary;
  /** The second `/healthz`: a warm request, for comparison. */
  secondRequestMs: Summary;
  /** `new Miniflare()` until the first `/healthz` answer. */
  totalMs: Summary;
}

/** Bindings that make a complete configuration; no request below reaches the API server. */
function startupBindings(): Record<string, string> {
  // As infra/deploy/cloudflare/kubeconfig.example.yaml: a user without a credential, given one by wrangler.toml's JWT source.
  const kubeconfig = oneContextKubeconfig('{server: "https://127.0.0.1:9"}', "{}");
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  return {
    KUBECONFIG: kubeconfig,
    JWT_PRIVATE_KEY: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    CALLER_AUTH_TOKENS: "bench-caller-token-0123456789abcdef",
  };
}

/** Starts workerd `runs` times for the bundle of `fn` and times each start and its first two requests. */
export async function measureWorkerStartup(fn: FunctionName, scriptPath: string, runs: number): Promise<WorkerStartup> {
  const { workerOptions } = unstable_getMiniflareWorkerOptions("wrangler.toml", fn);
  // tsc resolves this field's type; typescript-eslint's project service sees an error type.
  // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment
  const compatibilityDate: string = workerOptions.compatibilityDate ?? "2026-04-01";
  const vars = workerOptions.bindings as Record<string, string>;
  const runsMs: Record<Exclude<keyof WorkerStartup, "fn">, number>[] = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    const miniflare = new Miniflare({
      modules: true,
      scriptPath,
      modulesRoot: dirname(scriptPath),
      compatibilityDate,
      bindings: { ...vars, ...startupBindings() },
      cf: false,
      log: new Log(LogLevel.WARN),
    });
    try {
      await miniflare.ready;
      const readyAt = performance.now();
      const res = await miniflare.dispatchFetch("https://worker.local/healthz");
      const text = await res.text();
      const firstAt = performance.now();
      if (res.status !== 200 || text !== "ok")
        throw new Error(`${fn} Worker /healthz answered ${res.status}: ${text.slice(0, 200)}`);
      await (await miniflare.dispatchFetch("https://worker.local/healthz")).text();
      const secondAt = performance.now();
      const [readyMs, firstRequestMs, secondRequestMs] = [readyAt - started, firstAt - readyAt, secondAt - firstAt];
      runsMs.push({ readyMs, firstRequestMs, secondRequestMs, totalMs: firstAt - started });
    } finally {
      await miniflare.dispose();
    }
  }
  return { fn, ...summarizeEach(runsMs, ["readyMs", "firstRequestMs", "secondRequestMs", "totalMs"]) };
}
