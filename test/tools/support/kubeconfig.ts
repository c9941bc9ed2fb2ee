/**
 * Kubeconfigs for the tools tier's clients of the API server stand-in (test/support/kube-server.ts): one cluster,
 * one user and one context, written as JSON (which is YAML) with the cluster's CA beside them.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { pluginPath } from "../../support/exec-plugins.ts";

export interface KubeconfigOptions {
  server: string;
  /** The cluster's CA, written to ca.crt beside the kubeconfig, which names it by that relative path. */
  caPem: string;
  /** The user's entry: `{ token: "t" }`, `{}`, or {@link execUser}'s. */
  user: Record<string, unknown>;
  namespace?: string;
}

/** Writes the kubeconfig to `dir/config` and the CA to `dir/ca.crt`; returns the kubeconfig's path. */
export async function writeKubeconfig(dir: string, options: KubeconfigOptions): Promise<string> {
  const file = path.join(dir, "config");
  const namespace = options.namespace === undefined ? {} : { namespace: options.namespace };
  await writeFile(path.join(dir, "ca.crt"), options.caPem);
  const kubeconfig = {
    apiVersion: "v1",
    kind: "Config",
    "current-context": "test",
    clusters: [{ name: "local", cluster: { server: options.server, "certificate-authority": "ca.crt" } }],
    users: [{ name: "user", user: options.user }],
    contexts: [{ name: "test", context: { cluster: "local", user: "user", ...namespace } }],
  };
  await writeFile(file, JSON.stringify(kubeconfig));
  return file;
}

/** A user whose credential comes from the exec plugin fixture `plugin`, run by this Node with `env`. */
export function execUser(plugin: string, env: Record<string, string>): Record<string, unknown> {
  return {
    exec: {
      apiVersion: "client.authentication.k8s.io/v1",
      command: process.execPath,
      args: [pluginPath(plugin)],
      env: Object.entries(env).map(([name, value]) => ({ name, value })),
      interactiveMode: "Never",
    },
  };
}
