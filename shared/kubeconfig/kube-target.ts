/** The cluster and credentials a kubeconfig context points at, checked as client-go checks them; what we do not support is a problem. */
import {
  EXEC_CLUSTER_EXTENSION,
  validateExecConfig,
  type ExecClusterInfo,
  type ExecConfig,
} from "../credentials/exec-config.ts";
import type { Kubeconfig, RawCluster, RawUser } from "./kubeconfig.ts";

/**
 * The API server to talk to: `server` as written (it may carry a path prefix), file paths already absolute on Node,
 * `certificateAuthorityData` base64 without whitespace, `execExtension` the `client.authentication.k8s.io/exec` one.
 */
export type KubeCluster = {
  name: string;
  server: string;
  insecureSkipTlsVerify: boolean;
  disableCompression: boolean;
  execExtension?: unknown;
} & Partial<
  Record<"certificateAuthority" | "certificateAuthorityData" | "tlsServerName" | "proxyUrl", string | undefined>
>;

/** How the user authenticates: exactly one way, or none (the adapter may supply one, e.g. the JWT source). */
export type KubeUserAuth =
  | { kind: "none" }
  | { kind: "token"; token: string }
  | { kind: "tokenFile"; tokenFile: string }
  | {
      kind: "clientCertificate";
      certificateFile?: string | undefined;
      certificateData?: string | undefined;
      keyFile?: string | undefined;
      keyData?: string | undefined;
    }
  | { kind: "exec"; exec: ExecConfig };

/** What a context resolves to; `namespace` is the context's default, for the CLI as kubectl reads it. */
export type KubeTarget = {
  contextName: string;
  namespace?: string | undefined;
  cluster: KubeCluster;
  auth: KubeUserAuth;
};

type FileOrData = "certificate-authority" | "client-certificate" | "client-key";

/** `name`, a file, or `name`-data, normalized base64; a problem when both are set or the data is not base64. */
function readFileOrData(
  raw: { [key in FileOrData | `${FileOrData}-data`]?: string | null | undefined },
  name: FileOrData,
  where: string,
  problems: string[],
) {
  const file = raw[name] || undefined;
  const data = raw[`${name}-data`] || undefined;
  if (file && data) problems.push(`${where}: ${name} and ${name}-data are both set`);
  try {
    return { file, data: data && btoa(atob(data.replace(/\s+/g, ""))), given: Boolean(file || data) };
  } catch {
    problems.push(`${where}.${name}-data is not base64`);
    return { file, data: undefined, given: true };
  }
}

function resolveCluster(name: string, raw: RawCluster, where: string, problems: string[]): KubeCluster {
  const server = raw.server ?? "";
  let protocol: string | undefined;
  try {
    protocol = new URL(server).protocol;
  } catch {
    problems.push(`${where}.server must be a URL, got ${JSON.stringify(server)}`);
  }
  if (protocol !== undefined && protocol !== "https:" && protocol !== "http:")
    problems.push(`${where}.server must be https or http`);
  const ca = readFileOrData(raw, "certificate-authority", where, problems);
  const insecureSkipTlsVerify = raw["insecure-skip-tls-verify"] === true;
  if (insecureSkipTlsVerify && ca.given)
    problems.push(`${where}: insecure-skip-tls-verify cannot be combined with a certificate authority`);
  return {
    name,
    server,
    certificateAuthority: ca.file,
    certificateAuthorityData: ca.data,
    tlsServerName: raw["tls-server-name"] || undefined,
    insecureSkipTlsVerify,
    proxyUrl: raw["proxy-url"] || undefined,
    disableCompression: raw["disable-compression"] === true,
    execExtension: raw.extensions?.find((entry) => entry.name === EXEC_CLUSTER_EXTENSION)?.extension,
  };
}

function resolveUser(raw: RawUser, where: string, problems: string[]): KubeUserAuth {
  if (raw["auth-provider"]) problems.push(`${where}.auth-provider is not supported; use an exec plugin`);
  if (raw.username || raw.password) problems.push(`${where}: basic authentication is not supported`);
  if (raw.as) problems.push(`${where}.as: impersonation is not supported`);
  const ways: KubeUserAuth[] = [];
  // kubectl reads the file and uses the token only while the file cannot be read, which hides a stale or missing file.
  if (raw.token && raw.tokenFile) problems.push(`${where}: token and tokenFile are both set; keep one`);
  if (raw.token) ways.push({ kind: "token", token: raw.token });
  else if (raw.tokenFile) ways.push({ kind: "tokenFile", tokenFile: raw.tokenFile });
  const cert = readFileOrData(raw, "client-certificate", where, problems);
  const key = readFileOrData(raw, "client-key", where, problems);
  if (cert.given || key.given) {
    if (!cert.given || !key.given) problems.push(`${where}: a client certificate needs its key`);
    ways.push({
      kind: "clientCertificate",
      certificateFile: cert.file,
      certificateData: cert.data,
      keyFile: key.file,
      keyData: key.data,
    });
  }
  if (raw.exec !== undefined && raw.exec !== null) {
    const { config, problems: execProblems } = validateExecConfig(raw.exec, where);
    problems.push(...execProblems);
    if (config) ways.push({ kind: "exec", exec: config });
  }
  if (ways.length > 1) problems.push(`${where}: set one of token/tokenFile, client certificate or exec, not several`);
  return ways[0] ?? { kind: "none" };
}

/** Resolves `contextName` (default: `current-context`) to its cluster and user, or every problem found. */
export function selectKubeTarget(
  config: Kubeconfig,
  contextName?: string,
): { target?: KubeTarget; problems: string[] } {
  const name = contextName || config.currentContext;
  if (!name) return { problems: ["kubeconfig: no current-context is set and KUBE_CONTEXT is empty"] };
  const context = config.contexts.get(name);
  if (context === undefined) return { problems: [`kubeconfig: context "${name}" is not defined`] };
  const problems: string[] = [];
  const clusterName = context.context.cluster ?? "";
  const rawCluster = config.clusters.get(clusterName);
  if (rawCluster === undefined)
    problems.push(`kubeconfig: context "${name}" names cluster "${clusterName}", which is not defined`);
  const cluster =
    rawCluster &&
    resolveCluster(clusterName, rawCluster.cluster, `${rawCluster.source}: cluster "${clusterName}"`, problems);
  const userName = context.context.user ?? "";
  const rawUser = userName === "" ? undefined : config.users.get(userName);
  if (userName !== "" && rawUser === undefined)
    problems.push(`kubeconfig: context "${name}" names user "${userName}", which is not defined`);
  const auth =
    rawUser === undefined
      ? { kind: "none" as const }
      : resolveUser(rawUser.user, `${rawUser.source}: user "${userName}"`, problems);
  if (problems.length > 0 || cluster === undefined) return { problems };
  return { target: { contextName: name, namespace: context.context.namespace || undefined, cluster, auth }, problems };
}

/** What an exec plugin sees of `cluster` (`certificateAuthorityData` passed in when it came from a file). */
export function toExecClusterInfo(
  cluster: KubeCluster,
  certificateAuthorityData = cluster.certificateAuthorityData,
): ExecClusterInfo {
  const info: ExecClusterInfo = { server: cluster.server };
  if (cluster.tlsServerName) info["tls-server-name"] = cluster.tlsServerName;
  if (cluster.insecureSkipTlsVerify) info["insecure-skip-tls-verify"] = true;
  if (certificateAuthorityData) info["certificate-authority-data"] = certificateAuthorityData;
  if (cluster.proxyUrl) info["proxy-url"] = cluster.proxyUrl;
  if (cluster.disableCompression) info["disable-compression"] = true;
  if (cluster.execExtension !== undefined && cluster.execExtension !== null) info.config = cluster.execExtension;
  return info;
}
