import { Miniflare } from "miniflare";
import { unstable_getMiniflareWorkerOptions } from "wrangler";
import { forwardTrustingCa } from "../../../infra/local/worker-host.ts";

/**
 * Runs the bundle that `wrangler deploy --dry-run --env <env> --outdir .cache/worker/<env>` produced inside
 * workerd, with the vars of that wrangler environment (as deployed) plus test-only secrets, which never go into
 * wrangler.toml.
 * Outbound fetches trust `caPem` (Miniflare's outboundService), standing in for the publicly trusted
 * endpoint a deployed Worker needs.
 */
export function startWorker(
  env: string,
  secrets: Record<string, string>,
  caPem: string,
  overrides: Record<string, string> = {},
): Miniflare {
  const { workerOptions } = unstable_getMiniflareWorkerOptions("wrangler.toml", env);
  // tsc resolves this field's type; typescript-eslint's project service sees an error type.
  // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment
  const compatibilityDate: string = workerOptions.compatibilityDate ?? "2026-04-01";
  const vars = workerOptions.bindings as Record<string, string>;
  return new Miniflare({
    modules: true,
    scriptPath: `.cache/worker/${env}/index.js`,
    compatibilityDate,
    bindings: Object.fromEntries(Object.entries({ ...vars, ...secrets, ...overrides }).filter(([, v]) => v !== "")),
    outboundService: forwardTrustingCa(caPem),
  });
}
