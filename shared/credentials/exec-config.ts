/** The kubeconfig `user.exec` block (KEP-541) and the environment and `KUBERNETES_EXEC_INFO` a plugin sees, as client-go builds them. */
import * as z from "zod/mini";
import "../zod-english.ts";

/** The ExecCredential version client-go prefers: the one our kubeconfigs ask plugins for. */
export const EXEC_API_V1 = "client.authentication.k8s.io/v1";
/** The two ExecCredential versions client-go still speaks (v1alpha1 was removed in Kubernetes 1.24). */
export const EXEC_API_VERSIONS = [EXEC_API_V1, "client.authentication.k8s.io/v1beta1"] as const;

/** The cluster extension whose `extension` becomes `spec.cluster.config` of the ExecCredential. */
export const EXEC_CLUSTER_EXTENSION = "client.authentication.k8s.io/exec";

/** A validated `user.exec` block. */
export interface ExecConfig {
  apiVersion: (typeof EXEC_API_VERSIONS)[number];
  command: string;
  args: string[];
  env: { name: string; value: string }[];
  installHint?: string;
  provideClusterInfo: boolean;
  /** `Always` is refused: a webhook has no terminal. */
  interactiveMode: "Never" | "IfAvailable";
}

/** `spec.cluster` with `provideClusterInfo`: client-go's `clientauthentication` Cluster, `omitempty` fields left out. */
export interface ExecClusterInfo {
  server: string;
  "tls-server-name"?: string;
  "insecure-skip-tls-verify"?: true;
  /** Base64 of the PEM bundle, as in the kubeconfig (from `certificate-authority` files too). */
  "certificate-authority-data"?: string;
  "proxy-url"?: string;
  "disable-compression"?: true;
  /** The `client.authentication.k8s.io/exec` cluster extension, verbatim. */
  config?: unknown;
}

const execSchema = z.object({
  apiVersion: z.string().check(z.minLength(1)),
  command: z.string().check(z.minLength(1)),
  args: z.nullish(z.array(z.string())),
  env: z.nullish(z.array(z.object({ name: z.string().check(z.minLength(1)), value: z.nullish(z.string()) }))),
  installHint: z.nullish(z.string()),
  provideClusterInfo: z.nullish(z.boolean()),
  interactiveMode: z.nullish(z.string()),
});

/** Checks a raw `user.exec` block as client-go's kubeconfig validation does, reporting every problem. */
export function validateExecConfig(raw: unknown, where: string): { config?: ExecConfig; problems: string[] } {
  const parsed = execSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${where}.exec.${issue.path.join(".")}: ${issue.message}`);
    return { problems };
  }
  const exec = parsed.data;
  const problems: string[] = [];
  const apiVersion = EXEC_API_VERSIONS.find((version) => version === exec.apiVersion);
  if (apiVersion === undefined)
    problems.push(`${where}.exec.apiVersion must be one of ${EXEC_API_VERSIONS.join(", ")}`);
  const mode = exec.interactiveMode ?? "";
  if (mode === "" && apiVersion === EXEC_API_V1)
    problems.push(`${where}.exec.interactiveMode must be set for ${EXEC_API_V1}`);
  if (mode === "Always")
    problems.push(`${where}.exec.interactiveMode Always needs a terminal, which a webhook never has`);
  else if (!["", "Never", "IfAvailable"].includes(mode))
    problems.push(`${where}.exec.interactiveMode must be Never, IfAvailable or Always`);
  if (apiVersion === undefined || problems.length > 0) return { problems };
  const config: ExecConfig = {
    apiVersion,
    command: exec.command,
    args: exec.args ?? [],
    env: (exec.env ?? []).map(({ name, value }) => ({ name, value: value ?? "" })),
    provideClusterInfo: exec.provideClusterInfo ?? false,
    interactiveMode: mode === "Never" ? "Never" : "IfAvailable",
    ...(exec.installHint ? { installHint: exec.installHint } : {}),
  };
  return { config, problems };
}

/**
 * The plugin's environment: `baseEnv` (already `withoutPluginSecrets`), the config's `env`, then `KUBERNETES_EXEC_INFO`
 * as client-go builds it: never interactive; `spec.cluster` only with `provideClusterInfo`.
 */
export function buildPluginEnv(
  config: ExecConfig,
  cluster: ExecClusterInfo | undefined,
  baseEnv: Record<string, string | undefined>,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(baseEnv)) if (value !== undefined) env[name] = value;
  for (const { name, value } of config.env) env[name] = value;
  const spec =
    config.provideClusterInfo && cluster !== undefined ? { cluster, interactive: false } : { interactive: false };
  return {
    ...env,
    KUBERNETES_EXEC_INFO: JSON.stringify({ kind: "ExecCredential", apiVersion: config.apiVersion, spec }),
  };
}
