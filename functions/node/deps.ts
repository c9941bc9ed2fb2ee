/** The Node runtimes' platform (HTTPS server, AWS Lambda, Azure Functions): env -> config -> kube client -> buildApp. */
import type { Hono } from "hono";
import { readConfig, type Bindings, type Runtime } from "../../shared/config/index.ts";
import type { AppEnv } from "../../shared/http/env.ts";
import { buildApp, misconfiguredApp, type AppDeps } from "../app.ts";
import { createJsonMetrics } from "../metrics.ts";
import { createNodeGmsaClient } from "./kube/create-gmsa-client.ts";
// A type only: the Prometheus code must not reach the Lambda and Azure bundles, which import this file.
import type { PrometheusMetrics } from "./prometheus.ts";

/**
 * Options of {@link buildNodeDeps}: `write` takes JSON log lines (default stdout); the rest only the Node server has:
 * the client certificate (it terminates TLS), Prometheus metrics, `ready`, false once it is shutting down, and
 * `onCallerAuthenticated` (its connection guard).
 */
type NodeDepsOptions = Partial<Pick<AppDeps, "clientCertificate" | "ready" | "onCallerAuthenticated">> & {
  write?: (line: string) => void;
  prometheus?: PrometheusMetrics;
};

/**
 * Parses `env` for `runtime`, loads the kubeconfig and builds the kube client.
 * @returns the config, the app and its deps, and `close`, which kills running exec plugins and closes the API
 *   server connections (after in-flight requests).
 * @throws ConfigurationError (or its KubeConfigurationError subclass) listing every configuration problem.
 */
export async function buildNodeDeps(
  env: Bindings,
  runtime: Exclude<Runtime, "workers">,
  options: NodeDepsOptions = {},
) {
  const config = readConfig(env, runtime);
  const { write = (line: string) => process.stdout.write(`${line}\n`), prometheus, ...runtimeDeps } = options;
  const gmsa = await createNodeGmsaClient(
    config.kube,
    prometheus && { observer: prometheus.kube, refreshObserver: prometheus.tokenRefreshes },
  );
  prometheus?.collectKubeCounters(gmsa.counters);
  const { app, deps } = buildApp(config, {
    ...runtimeDeps,
    gmsa: gmsa.client,
    warnings: gmsa.warnings,
    kube: { request: gmsa.client.request, shareInFlight: true },
    write,
    metrics: prometheus ?? createJsonMetrics(gmsa.counters),
  });
  return { config, app, deps, close: gmsa.close };
}

/**
 * Lambda's and Azure's handler: `serve` over the app built from `env` at once (during their init phase), so both are
 * made once. A configuration problem is reported once to `options.error` (default console.error) and every request
 * answers 503 ({@link misconfiguredApp}); any other build failure fails each invocation that awaits the handler.
 */
export function buildServerlessApp<T>(
  env: Bindings,
  runtime: "lambda" | "azure",
  serve: (app: Hono<AppEnv>) => T,
  options: NodeDepsOptions & { error?: (message: string) => void } = {},
): Promise<T> {
  const served = buildNodeDeps(env, runtime, options)
    .then(
      ({ app }) => app,
      (error: unknown) => misconfiguredApp(error, options.error),
    )
    .then(serve);
  // Reported by the first invocation that awaits it, not as an unhandled rejection during init.
  served.catch(() => undefined);
  return served;
}
