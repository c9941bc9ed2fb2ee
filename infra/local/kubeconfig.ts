/**
 * Writes single-context kubeconfig files for the local cluster.
 */
import { writeFile } from "node:fs/promises";
import { stringify } from "yaml";

/** The `user` entry of a kubeconfig: a static token, an exec plugin or a client certificate (client-go field names). */
export type KubeconfigUser =
  { token: string } | { exec: Record<string, unknown> } | { "client-certificate": string; "client-key": string };

/** Options for {@link writeKubeconfig}. */
export interface WriteKubeconfigOptions {
  path: string;
  server: string;
  caPem: string;
  /** Names the cluster, user and context alike. */
  name: string;
  user: KubeconfigUser;
}

/**
 * Writes a kubeconfig with one cluster (CA inlined as `certificate-authority-data`, so the file
 * stands alone), one user and one current context. Mode 0600: it may hold a token.
 */
export async function writeKubeconfig(options: WriteKubeconfigOptions): Promise<string> {
  const { path, server, caPem, name, user } = options;
  const config = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name, cluster: { server, "certificate-authority-data": Buffer.from(caPem).toString("base64") } }],
    users: [{ name, user }],
    contexts: [{ name, context: { cluster: name, user: name } }],
    "current-context": name,
  };
  await writeFile(path, stringify(config), { mode: 0o600 });
  return path;
}
