/**
 * The Workers wiring: the kubeconfig YAML comes from the KUBECONFIG secret, the credential is a static token or
 * (better) the JWT token source or CLOUD_TOKEN=eks, and requests go through the global fetch. That fetch trusts
 * public CAs only and has no SNI override, proxy or client certificate (docs/configuration.md): kubeconfig settings
 * Workers cannot honour are start-up errors.
 */
import { KubeConfigurationError, type KubeSettings } from "../../shared/config/index.ts";
import { createCloudTokenSource } from "../../shared/credentials/cloud-token-source.ts";
import { CLOUDS } from "../../shared/credentials/clouds/index.ts";
import { createJwtTokenSource } from "../../shared/credentials/jwt.ts";
import { selectTokenSource, type TokenSourceCapabilities } from "../../shared/credentials/select-token-source.ts";
import { createStaticTokenSource, type TokenSource } from "../../shared/credentials/token-source.ts";
import { createKubeGmsaClient, type KubeGmsaClient } from "../../shared/kube/client.ts";
import { selectKubeTarget } from "../../shared/kubeconfig/kube-target.ts";
import { parseKubeconfig } from "../../shared/kubeconfig/kubeconfig.ts";

/**
 * What Workers' fetch can do: no processes, no files, no client certificates; a credential is required. Of the
 * cloud sources only those that sign locally (eks): a Worker reaches neither a loopback nor a link-local endpoint.
 */
const WORKER_CAPABILITIES: TokenSourceCapabilities = {
  runtime: "Workers",
  exec: false,
  tokenFile: false,
  clientCertificate: false,
  cloudTokens: CLOUDS.filter((cloud) => cloud.unreachable === undefined).map((cloud) => cloud.kind),
};

/**
 * Builds the Workers client once per isolate, and the start-up warnings to log once. `fetch`: default the global
 * one; tests pass one that reaches a local server.
 * @throws KubeConfigurationError listing every problem with the KUBECONFIG secret, KUBE_CONTEXT, JWT_* and CLOUD_TOKEN.
 */
export function createWorkerGmsaClient(
  settings: KubeSettings,
  options: { fetch?: typeof fetch } = {},
): { client: KubeGmsaClient; warnings: string[] } {
  const warnings: string[] = [];
  if (settings.kubeconfig === undefined)
    throw new KubeConfigurationError(["KUBECONFIG must hold the kubeconfig YAML (a Workers secret)"]);
  const parsed = parseKubeconfig(settings.kubeconfig, { source: "the KUBECONFIG secret" });
  if (parsed.config === undefined) throw new KubeConfigurationError(parsed.problems);
  const { target, problems } = selectKubeTarget(parsed.config, settings.kubeContext);
  if (target === undefined) throw new KubeConfigurationError(problems);
  const { cluster } = target;
  const where = `kubeconfig cluster "${cluster.name}"`;
  if (cluster.certificateAuthority) problems.push(`${where}: certificate-authority files cannot be read on Workers`);
  if (cluster.certificateAuthorityData) {
    warnings.push(
      `${where}: certificate-authority-data is ignored on Workers; the server needs a publicly trusted certificate`,
    );
  }
  if (cluster.insecureSkipTlsVerify)
    problems.push(`${where}: insecure-skip-tls-verify cannot be honoured by Workers' fetch`);
  if (cluster.tlsServerName) problems.push(`${where}: tls-server-name cannot be honoured by Workers' fetch`);
  if (cluster.proxyUrl) problems.push(`${where}: proxy-url cannot be honoured by Workers' fetch`);
  if (cluster.server.startsWith("http:")) warnings.push(`${where}: server is plain http; tokens travel unencrypted`);
  const selected = selectTokenSource(target, settings, WORKER_CAPABILITIES);
  problems.push(...selected.problems);
  const { choice } = selected;
  if (problems.length > 0 || choice === undefined) throw new KubeConfigurationError(problems);
  // A request must not await another request's promise on Workers (panva/jose#355, #509): shareInFlight false. Exec,
  // token files and client certificates were refused by WORKER_CAPABILITIES.
  let tokenSource: TokenSource | undefined;
  if (choice.kind === "token") tokenSource = createStaticTokenSource(choice);
  else if (choice.kind === "jwt") tokenSource = createJwtTokenSource({ ...choice.jwt, shareInFlight: false });
  else if (choice.kind === "cloud") tokenSource = createCloudTokenSource(choice.cloudToken, { shareInFlight: false });
  const client = createKubeGmsaClient({
    server: cluster.server,
    // Our requests always ask for `redirect: "manual"`; the global fetch needs calling unbound.
    fetch: options.fetch ?? ((input, init) => fetch(input, init)),
    tokenSource,
    disableCompression: cluster.disableCompression,
    credSpecCacheTtlMs: settings.credSpecCacheTtlMs,
    accessCacheTtlMs: settings.accessCacheTtlMs,
    shareInFlight: false,
  });
  return { client, warnings };
}
