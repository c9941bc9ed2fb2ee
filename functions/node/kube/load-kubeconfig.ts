/**
 * Where a Node process finds its cluster, in kubectl's order: the KUBECONFIG path list (merged, missing files
 * skipped), else ~/.kube/config, else the in-cluster service account. Files the kubeconfig points at (CA, client
 * certificate and key) are read here, once; token files are re-read by their token source.
 */
import { access, readFile } from "node:fs/promises";
import { homedir } from "node:os";
import path from "node:path";
import { KubeConfigurationError, type KubeSettings } from "../../../shared/config/index.ts";
import { selectKubeTarget, type KubeTarget } from "../../../shared/kubeconfig/kube-target.ts";
import { mergeKubeconfigs, parseKubeconfig, type Kubeconfig } from "../../../shared/kubeconfig/kubeconfig.ts";
import type { ClientCertificate } from "../../../shared/kube/request.ts";

/** The standard mount of a pod's service account. */
export const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

/** A target with its files read: `certificate-authority(-data)`, `client-certificate(-data)` and `client-key(-data)`. */
export type NodeKubeTarget = Awaited<ReturnType<typeof loadNodeKubeTarget>>;

/** The file's text; undefined when it does not exist (`missing`) or, with a problem, cannot be read. */
async function readText(
  file: string,
  what: string,
  problems: string[],
  missing?: () => void,
): Promise<string | undefined> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException;
    if (code === "ENOENT" && missing !== undefined) missing();
    else problems.push(`${what} "${file}" cannot be read (${code ?? "error"})`);
    return undefined;
  }
}

async function loadFiles(files: string[], problems: string[], warnings: string[]): Promise<Kubeconfig | undefined> {
  const configs: Kubeconfig[] = [];
  for (const file of files) {
    // kubectl skips missing files of a KUBECONFIG list too.
    const text = await readText(file, "kubeconfig", problems, () =>
      warnings.push(`kubeconfig "${file}" does not exist; skipped`),
    );
    if (text === undefined) continue;
    const folder = path.dirname(path.resolve(file));
    const parsed = parseKubeconfig(text, { source: file, resolvePath: (entry: string) => path.resolve(folder, entry) });
    problems.push(...parsed.problems);
    if (parsed.config) configs.push(parsed.config);
  }
  // One unreadable file fails the whole list, as client-go's loading rules do: no target from the rest.
  return configs.length === 0 || problems.length > 0 ? undefined : mergeKubeconfigs(configs);
}

const exists = (file: string): Promise<boolean> =>
  access(file).then(
    () => true,
    () => false,
  );
const fromBase64 = (data: string): string => Buffer.from(data, "base64").toString("utf8");

/**
 * Finds and resolves the cluster and user, reading CA and client certificate files; `options` default to the machine's
 * home and service account folders. @throws KubeConfigurationError with every problem found.
 */
export async function loadNodeKubeTarget(
  settings: KubeSettings,
  options: { homeDir?: string; serviceAccountDir?: string } = {},
) {
  const problems: string[] = [];
  const warnings: string[] = [];
  const serviceAccountDir = options.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
  const files = settings.kubeconfig?.split(path.delimiter).filter((file) => file !== "") ?? [];
  const defaultFile = path.join(options.homeDir ?? homedir(), ".kube", "config");
  if (files.length === 0 && (await exists(defaultFile))) files.push(defaultFile);
  let target: KubeTarget | undefined;
  if (files.length > 0) {
    const config = await loadFiles(files, problems, warnings);
    if (config === undefined && problems.length === 0)
      problems.push(`none of the KUBECONFIG files exist: ${files.join(", ")}`);
    if (config !== undefined) {
      const selected = selectKubeTarget(config, settings.kubeContext);
      problems.push(...selected.problems);
      target = selected.target;
    }
  } else if (settings.inCluster !== undefined) {
    if (settings.kubeContext !== undefined) warnings.push("KUBE_CONTEXT is ignored in-cluster (no kubeconfig)");
    const { host, port } = settings.inCluster;
    // Only an IPv6 address has a colon.
    const server = `https://${host.includes(":") ? `[${host}]` : host}:${port}`;
    const certificateAuthority = path.join(serviceAccountDir, "ca.crt");
    const cluster = {
      name: "in-cluster",
      server,
      certificateAuthority,
      insecureSkipTlsVerify: false,
      disableCompression: false,
    };
    target = {
      contextName: "in-cluster",
      cluster,
      auth: { kind: "tokenFile", tokenFile: path.join(serviceAccountDir, "token") },
    };
    if (!(await exists(path.join(serviceAccountDir, "token")))) {
      problems.push(`in-cluster: no service account token in ${serviceAccountDir} (automountServiceAccountToken off?)`);
    }
  } else {
    problems.push("no kubeconfig: set KUBECONFIG, create ~/.kube/config, or run in a pod with a service account");
  }
  if (target === undefined) throw new KubeConfigurationError(problems);

  const { cluster, auth } = target;
  const where = `kubeconfig cluster "${cluster.name}"`;
  if (cluster.proxyUrl && !/^https?:\/\//i.test(cluster.proxyUrl))
    problems.push(`${where}: proxy-url must be http:// or https:// (socks5 is not supported)`);
  let caPem = cluster.certificateAuthorityData ? fromBase64(cluster.certificateAuthorityData) : undefined;
  if (cluster.certificateAuthority)
    caPem = await readText(cluster.certificateAuthority, "certificate-authority", problems);
  if (cluster.insecureSkipTlsVerify)
    warnings.push(`${where}: insecure-skip-tls-verify is set: the API server's certificate is NOT verified`);
  if (cluster.server.startsWith("http:")) warnings.push(`${where}: server is plain http; tokens travel unencrypted`);
  let clientCertificate: ClientCertificate | undefined;
  if (auth.kind === "clientCertificate") {
    const certificate = auth.certificateData
      ? fromBase64(auth.certificateData)
      : await readText(auth.certificateFile ?? "", "client-certificate", problems);
    const key = auth.keyData ? fromBase64(auth.keyData) : await readText(auth.keyFile ?? "", "client-key", problems);
    if (certificate !== undefined && key !== undefined) clientCertificate = { certificate, key };
  }
  if (problems.length > 0) throw new KubeConfigurationError(problems);
  return { target, caPem, clientCertificate, warnings };
}
