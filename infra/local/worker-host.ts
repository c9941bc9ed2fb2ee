/**
 * Serves one function's Worker bundle (wrangler's `deploy --dry-run` output) in workerd through
 * Miniflare, over HTTPS, as its own process: `node infra/local/worker-host.ts <config.json>`.
 * Started by stack-worker.ts, which reads readiness from `/healthz` and stops it with SIGTERM.
 *
 * The config file (written mode 0600 by the parent, deleted here once read, as it holds secrets):
 * {@link WorkerHostConfig}. The Worker gets the vars of its wrangler environment, as deployed,
 * plus the config's bindings (the secrets `wrangler secret put` would set).
 *
 * Outbound fetches go through {@link forwardTrustingCa}: a Node function that trusts one CA, the local
 * front proxy's (front-proxy.ts), standing in for the public CAs a deployed Worker's fetch trusts. In
 * production the Worker reaches the API server through a front with a publicly trusted certificate
 * (infra/deploy/cloudflare/README.md, "Reaching a private-CA API server"); this hop exists only because the
 * local front's certificate is signed by a CA of our own.
 */
import { readFileSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import type { Readable } from "node:stream";
import { Log, LogLevel, Miniflare, Response as MiniflareResponse, type Request as MiniflareRequest } from "miniflare";
import { Agent, fetch as undiciFetch } from "undici";
import { unstable_getMiniflareWorkerOptions } from "wrangler";

/** What the parent passes in the config file. */
export interface WorkerHostConfig {
  /** wrangler environment: `expand` or `authorize`. */
  env: string;
  /** The bundle's entry module, e.g. `<dir>/bundle-expand/index.js`. */
  scriptPath: string;
  /** wrangler.toml, for the environment's vars and compatibility date. */
  wranglerConfigPath: string;
  host: string;
  port: number;
  httpsCertPath: string;
  httpsKeyPath: string;
  /** PEM file of the only CA the outbound fetch trusts (the local front proxy's). */
  outboundCaFile: string;
  /** Secrets and overrides, on top of the environment's vars. */
  bindings: Record<string, string>;
}

/** Headers a forwarding hop must not copy (RFC 9110 section 7.6.1), plus the length undici recomputes. */
const HOP_BY_HOP = ["connection", "keep-alive", "transfer-encoding", "upgrade", "host", "content-length"];

/** Header pairs without hop-by-hop ones (and `drop`), between two fetch implementations' Headers classes. */
function copyHeaders(headers: Iterable<[string, string]>, drop: string[] = []): [string, string][] {
  return [...headers].filter(
    ([name]) => !HOP_BY_HOP.includes(name.toLowerCase()) && !drop.includes(name.toLowerCase()),
  );
}

/**
 * An `outboundService` that sends the Worker's request on with undici, trusting `caPem` besides nothing
 * else: the local stand-in for the public CAs a deployed Worker trusts.
 */
export function forwardTrustingCa(caPem: string): (request: MiniflareRequest) => Promise<MiniflareResponse> {
  const dispatcher = new Agent({ connect: { ca: caPem }, keepAliveTimeout: 30_000 });
  return async (request) => {
    const headers = copyHeaders(request.headers);
    const hasBody = request.method !== "GET" && request.method !== "HEAD";
    const upstream = await undiciFetch(request.url, {
      method: request.method,
      headers,
      body: hasBody ? await request.arrayBuffer() : null,
      redirect: "manual",
      dispatcher,
    });
    // undici already decoded the body; the Worker must not decode it again.
    const responseHeaders = copyHeaders(upstream.headers, ["content-encoding"]);
    return new MiniflareResponse(await upstream.arrayBuffer(), {
      status: upstream.status,
      statusText: upstream.statusText,
      headers: responseHeaders,
    });
  };
}

async function main(configPath: string): Promise<void> {
  const config = JSON.parse(readFileSync(configPath, "utf8")) as WorkerHostConfig;
  rmSync(configPath, { force: true });
  const { workerOptions } = unstable_getMiniflareWorkerOptions(config.wranglerConfigPath, config.env);
  // tsc resolves this field's type; typescript-eslint's project service sees an error type.
  // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment
  const compatibilityDate: string = workerOptions.compatibilityDate ?? "2026-04-01";
  const vars = workerOptions.bindings as Record<string, string>;
  const miniflare = new Miniflare({
    name: `gmsa-${config.env}`,
    modules: true,
    scriptPath: config.scriptPath,
    // Module names are paths relative to this root; the default (the working directory) cannot
    // reach a bundle in the temp folder without "..", which workerd refuses.
    modulesRoot: dirname(config.scriptPath),
    compatibilityDate,
    bindings: { ...vars, ...config.bindings },
    host: config.host,
    port: config.port,
    https: true,
    httpsCertPath: config.httpsCertPath,
    httpsKeyPath: config.httpsKeyPath,
    outboundService: forwardTrustingCa(readFileSync(config.outboundCaFile, "utf8")),
    // No request to Cloudflare for the `cf` object (docs/development.md, Toolchain).
    cf: false,
    log: new Log(LogLevel.WARN),
    // The Worker's console.log lines (one JSON line per review) go to this process's log file.
    handleRuntimeStdio(stdout: Readable, stderr: Readable) {
      stdout.pipe(process.stdout);
      stderr.pipe(process.stderr);
    },
  });
  const url = await miniflare.ready;
  console.error(`[worker-host] ${config.env} listening at ${url.href}`);
  const stop = (): void => {
    void miniflare.dispose().finally(() => process.exit(0));
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

if (import.meta.main) {
  const configPath = process.argv[2];
  if (configPath === undefined) {
    console.error("usage: node infra/local/worker-host.ts <config.json>");
    process.exit(2);
  }
  await main(configPath);
}
