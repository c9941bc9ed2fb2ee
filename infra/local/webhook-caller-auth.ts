/**
 * The API server side of `CALLER_AUTH=bearer` for the local cluster: an AdmissionConfiguration
 * whose webhook kubeconfig gives every webhook call an `Authorization: Bearer <token>` header
 * (Kubernetes docs, "Dynamic Admission Control", section "Authenticate apiservers"). The same
 * files for real clusters, with comments, are in infra/deploy/caller-auth/.
 */
import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { stringify } from "yaml";

/** A fresh caller token: 32 random bytes, base64url (no characters that need quoting anywhere). */
export function createCallerToken(): string {
  return randomBytes(32).toString("base64url");
}

/** What {@link writeWebhookCallerAuth} wrote. */
export interface WebhookCallerAuthFiles {
  admissionConfigFile: string;
  webhookKubeconfigFile: string;
  /** Flags for kube-apiserver (`--admission-control-config-file=...`). */
  apiserverArgs: string[];
}

/**
 * Writes `admission-configuration.yaml` and `webhook-kubeconfig.yaml` (mode 0600) into `dir`.
 * The kubeconfig's one user is named `*`, so the token goes to every webhook URL: fine on a
 * throwaway local cluster whose only webhooks are ours, and what lets the functions run on any
 * free port. Real clusters name each function's host instead (infra/deploy/caller-auth/README.md).
 * The files must exist before kube-apiserver starts: it reads them once, at start-up.
 */
export async function writeWebhookCallerAuth(dir: string, token: string): Promise<WebhookCallerAuthFiles> {
  const webhookKubeconfigFile = join(dir, "webhook-kubeconfig.yaml");
  const admissionConfigFile = join(dir, "admission-configuration.yaml");
  const kubeconfig = { apiVersion: "v1", kind: "Config", users: [{ name: "*", user: { token } }] };
  await writeFile(webhookKubeconfigFile, stringify(kubeconfig), { mode: 0o600 });
  const plugin = (name: string) => ({
    name,
    configuration: {
      apiVersion: "apiserver.config.k8s.io/v1",
      kind: "WebhookAdmissionConfiguration",
      kubeConfigFile: webhookKubeconfigFile,
    },
  });
  const admission = {
    apiVersion: "apiserver.config.k8s.io/v1",
    kind: "AdmissionConfiguration",
    plugins: [plugin("ValidatingAdmissionWebhook"), plugin("MutatingAdmissionWebhook")],
  };
  await writeFile(admissionConfigFile, stringify(admission), { mode: 0o600 });
  return {
    admissionConfigFile,
    webhookKubeconfigFile,
    apiserverArgs: [`--admission-control-config-file=${admissionConfigFile}`],
  };
}
