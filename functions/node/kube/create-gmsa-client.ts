/** The webhooks' Kubernetes client on Node: credentials (load-credentials.ts) -> keep-alive fetch -> client, with caches and counters. */
import type { ExecRunCounters } from "../../../shared/credentials/exec-credential.ts";
import type { KubeSettings } from "../../../shared/config/index.ts";
import type { KubeObserver } from "../../../shared/observer.ts";
import { createKubeGmsaClient, type KubeGmsaClient } from "../../../shared/kube/client.ts";
import { createHttpsKubeFetch } from "./https-fetch.ts";
import { loadNodeKubeCredentials, type NodeKubeCredentialsOptions } from "./load-credentials.ts";

/** Options of {@link createNodeGmsaClient}: the observers (Prometheus) are the Node adapter's, the rest for tests. */
export type NodeGmsaClientOptions = NodeKubeCredentialsOptions & { observer?: KubeObserver };

/** Counters for /metrics; `execRuns` only when the credential comes from an exec plugin. */
export type KubeCounters = ReturnType<KubeGmsaClient["stats"]> & { execRuns?: ExecRunCounters };

/**
 * Loads the kubeconfig and builds the client, its token source and keep-alive connections.
 * @returns the client, its counters, start-up warnings to log (insecure-skip-tls-verify, skipped files), and `close`,
 *   which kills running exec plugins and closes the connection pools (after in-flight requests).
 * @throws KubeConfigurationError with every problem found.
 */
export async function createNodeGmsaClient(settings: KubeSettings, options: NodeGmsaClientOptions = {}) {
  const {
    loaded,
    tokenSource,
    execCounters,
    warnings,
    close: closeSource,
  } = await loadNodeKubeCredentials(settings, options);
  const { cluster } = loaded.target;
  const transport = createHttpsKubeFetch({ ...cluster, ca: loaded.caPem, clientCertificate: loaded.clientCertificate });
  const client = createKubeGmsaClient({
    server: cluster.server,
    fetch: transport.fetch,
    tokenSource,
    disableCompression: cluster.disableCompression,
    credSpecCacheTtlMs: settings.credSpecCacheTtlMs,
    accessCacheTtlMs: settings.accessCacheTtlMs,
    now: options.now,
    observer: options.observer,
    shareInFlight: true,
  });
  return {
    client,
    warnings,
    counters: (): KubeCounters => ({
      ...client.stats(),
      ...(execCounters === undefined ? {} : { execRuns: execCounters() }),
    }),
    close: (): Promise<void> => {
      closeSource();
      return transport.close();
    },
  };
}
