/**
 * A Node process's credentials to the API server: kubeconfig (or in-cluster) -> token source. A platform piece, shared
 * by the webhooks' client (create-gmsa-client.ts: the Node server, Lambda, Azure Functions) and the CLI (cli/cluster.ts).
 */
import { readFile } from "node:fs/promises";
import type { RunPlugin } from "../../../shared/credentials/exec-credential.ts";
import { createStaticTokenSource } from "../../../shared/credentials/token-source.ts";
import {
  selectTokenSource,
  type TokenSourceCapabilities,
  type TokenSourceChoice,
} from "../../../shared/credentials/select-token-source.ts";
import {
  CLOUD_TOKENS,
  KubeConfigurationError,
  withoutPluginSecrets,
  type CloudTokenKind,
  type KubeSettings,
} from "../../../shared/config/index.ts";
import type { RefreshObserver } from "../../../shared/observer.ts";
import { toExecClusterInfo } from "../../../shared/kubeconfig/kube-target.ts";
import { loadNodeKubeTarget, type NodeKubeTarget } from "./load-kubeconfig.ts";

/** Options of {@link loadNodeKubeCredentials}: the refresh observer (Prometheus) is the Node server's, the rest for tests and the CLI. */
export type NodeKubeCredentialsOptions = Parameters<typeof loadNodeKubeTarget>[1] & {
  /** The environment exec plugins inherit, less our secrets. Default `process.env`. */
  baseEnv?: Record<string, string | undefined>;
  runPlugin?: RunPlugin;
  /** Default: the exec source's own `EXEC_TIMEOUT_MS`. */
  execTimeoutMs?: number;
  /** Wall clock for credentials (expirationTimestamp) and Retry-After. Default `Date.now`. */
  now?: () => number;
  /** Monotonic clock for the credentials' backoff. Default `performance.now`. */
  monotonic?: () => number;
  refreshObserver?: (source: TokenRefreshSource) => RefreshObserver;
};

/** The `source` label of a refreshing credential: which kind of source, never its command or path. */
export type TokenRefreshSource = "exec" | "token_file" | "jwt" | CloudTokenKind;

/** What a Node process can do: everything, every cloud source included (where its endpoint answers). */
const NODE_CAPABILITIES: TokenSourceCapabilities = {
  runtime: "Node",
  exec: true,
  tokenFile: true,
  clientCertificate: true,
  cloudTokens: CLOUD_TOKENS,
};

/**
 * The token source `choice` names; a static token or client certificate never refreshes. Each kind but a static token
 * is imported when chosen, so a bundle loads only its own.
 */
async function buildTokenSource(
  choice: TokenSourceChoice,
  { target, caPem }: NodeKubeTarget,
  options: NodeKubeCredentialsOptions,
) {
  const common = (source: TokenRefreshSource) => ({
    shareInFlight: true,
    now: options.now,
    monotonic: options.monotonic,
    onRefresh: options.refreshObserver?.(source),
  });
  switch (choice.kind) {
    case "exec": {
      const [{ createExecTokenSource }, { killRunningPlugins, runPlugin: spawnPlugin }] = await Promise.all([
        import("../../../shared/credentials/exec-credential.ts"),
        import("./run-plugin.ts"),
      ]);
      const caData =
        target.cluster.certificateAuthorityData ??
        (caPem === undefined ? undefined : Buffer.from(caPem).toString("base64"));
      const exec = createExecTokenSource({
        ...common("exec"),
        exec: choice.exec,
        cluster: toExecClusterInfo(target.cluster, caData),
        runPlugin: options.runPlugin ?? spawnPlugin,
        baseEnv: withoutPluginSecrets(options.baseEnv ?? process.env),
        ...(options.execTimeoutMs === undefined ? {} : { timeoutMs: options.execTimeoutMs }),
      });
      return { tokenSource: exec, counters: () => exec.counters(), close: killRunningPlugins };
    }
    case "token":
      return { tokenSource: createStaticTokenSource({ token: choice.token }) };
    case "tokenFile": {
      const { createTokenFileSource } = await import("../../../shared/credentials/token-file.ts");
      return {
        tokenSource: createTokenFileSource({
          ...common("token_file"),
          path: choice.tokenFile,
          readText: (file) => readFile(file, "utf8"),
        }),
      };
    }
    case "jwt": {
      const { createJwtTokenSource } = await import("../../../shared/credentials/jwt.ts");
      return { tokenSource: createJwtTokenSource({ ...common("jwt"), ...choice.jwt }) };
    }
    case "cloud": {
      const { createCloudTokenSource } = await import("../../../shared/credentials/cloud-token-source.ts");
      return { tokenSource: createCloudTokenSource(choice.cloudToken, common(choice.cloudToken.kind)) };
    }
    case "clientCertificate":
      return {};
  }
}

/**
 * Loads the kubeconfig (or in-cluster) and builds its token source: what the Node server and the CLI share.
 * @returns the target with its files read, the token source, start-up warnings for the caller to show, and `close`,
 *   which kills running exec plugins.
 * @throws KubeConfigurationError with every problem found.
 */
export async function loadNodeKubeCredentials(settings: KubeSettings, options: NodeKubeCredentialsOptions = {}) {
  const loaded = await loadNodeKubeTarget(settings, options);
  const selected = selectTokenSource(loaded.target, settings, NODE_CAPABILITIES);
  if (selected.choice === undefined) throw new KubeConfigurationError(selected.problems);
  const { tokenSource, counters: execCounters, close } = await buildTokenSource(selected.choice, loaded, options);
  return { loaded, tokenSource, execCounters, warnings: loaded.warnings, close: () => close?.() };
}
