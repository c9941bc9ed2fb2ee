/**
 * The Workers wiring: the kubeconfig YAML comes from the KUBECONFIG secret, the credential is a static token or
 * (better) the JWT token source, and requests go through the global fetch. That fetch trusts public CAs only and
 * has no SNI override, proxy or client certificate, so the API server must be reached through an endpoint with
 * a publicly trusted certificate (README.md); kubeconfig settings Workers cannot honour are start-up errors.
 */
import { createJwtTokenSource } from "../credentials/jwt.ts";
import { createStaticTokenSource, type TokenSource } from "../credentials/token-source.ts";
import { createKubeGmsaClient, type KubeGmsaClient } from "./client.ts";
import { KubeConfigurationError } from "./configuration-error.ts";
import { selectKubeTarget, type KubeTarget } from "./kube-target.ts";
import { parseKubeconfig } from "./kubeconfig.ts";
import type { KubeSettings } from "./settings.ts";
import { createPlainKubeFetch } from "./transport.ts";

/** Options of {@link createWorkerGmsaClient}. */
export interface WorkerGmsaClientOptions {
  /** Default: the global fetch. Tests pass one that reaches a local server. */
  fetch?: typeof fetch;
  now?: () => number;
}

/** The client and the start-up warnings the adapter should log once. */
export interface WorkerGmsaClient {
  client: KubeGmsaClient;
  warnings: string[];
}

function checkCluster(target: KubeTarget, problems: string[], warnings: string[]): void {
  const { cluster } = target;
  const where = `kubeconfig cluster "${cluster.name}"`;
  if (cluster.certificateAuthority) problems.push(`${where}: certificate-authority files cannot be read on Workers`);
  if (cluster.certificateAuthorityData) {
    warnings.push(`${where}: certificate-authority-data is ignored on Workers; the server needs a publicly trusted certificate`);
  }
  if (cluster.insecureSkipTlsVerify) problems.push(`${where}: insecure-skip-tls-verify cannot be honoured by Workers' fetch`);
  if (cluster.tlsServerName) problems.push(`${where}: tls-server-name cannot be honoured by Workers' fetch`);
  if (cluster.proxyUrl) problems.push(`${where}: proxy-url cannot be honoured by Workers' fetch`);
  if (cluster.server.startsWith("http:")) warnings.push(`${where}: server is plain http; tokens travel unencrypted`);
}

function chooseTokenSource(
  target: KubeTarget,
  settings: KubeSettings,
  now: (() => number) | undefined,
  problems: string[],
): TokenSource | undefined {
  const { auth } = target;
  const where = `kubeconfig context "${target.contextName}"`;
  switch (auth.kind) {
    case "exec":
      problems.push(`${where}: exec plugins cannot run on Workers; remove the user's exec block and set JWT_* instead`);
      return undefined;
    case "tokenFile":
      problems.push(`${where}: tokenFile cannot be read on Workers; use token or JWT_*`);
      return undefined;
    case "clientCertificate":
      problems.push(`${where}: client certificates cannot be presented by Workers' fetch; use token or JWT_*`);
      return undefined;
    case "token":
      if (settings.jwt !== undefined) problems.push(`${where}: the user has a token and JWT_* is set too; keep one`);
      return createStaticTokenSource({ token: auth.token });
    case "none":
      if (settings.jwt === undefined) {
        problems.push(`${where}: no credential; set JWT_* or give the user a token`);
        return undefined;
      }
      return createJwtTokenSource({
        ...settings.jwt,
        // A request must not await another request's promise on Workers (panva/jose#355, #509).
        shareInFlight: false,
        now,
        refreshSkewMs: settings.tokenRefreshSkewMs,
      });
  }
}

/**
 * Builds the Workers client once per isolate.
 * @throws KubeConfigurationError listing every problem with the KUBECONFIG secret, KUBE_CONTEXT and JWT_*.
 */
export function createWorkerGmsaClient(settings: KubeSettings, options: WorkerGmsaClientOptions = {}): WorkerGmsaClient {
  const warnings: string[] = [];
  if (settings.kubeconfig === undefined) {
    throw new KubeConfigurationError(["KUBECONFIG must hold the kubeconfig YAML (a Workers secret)"]);
  }
  const parsed = parseKubeconfig(settings.kubeconfig, { source: "the KUBECONFIG secret" });
  if (parsed.config === undefined) throw new KubeConfigurationError(parsed.problems);
  const { target, problems } = selectKubeTarget(parsed.config, settings.kubeContext);
  if (target === undefined) throw new KubeConfigurationError(problems);
  checkCluster(target, problems, warnings);
  const tokenSource = chooseTokenSource(target, settings, options.now, problems);
  if (problems.length > 0) throw new KubeConfigurationError(problems);
  const client = createKubeGmsaClient({
    server: target.cluster.server,
    fetch: createPlainKubeFetch(options.fetch ?? ((input, init) => fetch(input, init))),
    tokenSource,
    requestTimeoutMs: settings.requestTimeoutMs,
    disableCompression: target.cluster.disableCompression,
    credSpecCache: settings.credSpecCache,
    accessCache: settings.accessCache,
    now: options.now,
  });
  return { client, warnings };
}
