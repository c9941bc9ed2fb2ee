/**
 * Environment for the function-platform smoke tests (AWS Lambda, Azure Functions, their bundles): a kubeconfig with
 * a static token for an API server at https://127.0.0.1:1, which nothing listens on. A review that needed an API
 * call would be denied with 500, so an allowed review of a pod without GMSA also shows that no call was made.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { tempDir } from "./temp-dir.ts";

export const CALLER_TOKEN = "caller-token-for-serverless-tests-0123";
export const STATIC_KUBE_TOKEN = "static-kube-token-never-sent-0123";

/** Writes the kubeconfig and returns the environment a function platform would give the process. */
export async function serverlessEnv(
  overrides: Record<string, string | undefined> = {},
): Promise<Record<string, string | undefined>> {
  const dir = await tempDir("gmsa-serverless-");
  const kubeconfig = path.join(dir, "kubeconfig.yaml");
  await writeFile(
    kubeconfig,
    [
      "apiVersion: v1",
      "kind: Config",
      'clusters: [{name: unreachable, cluster: {server: "https://127.0.0.1:1"}}]',
      `users: [{name: gmsa, user: {token: ${STATIC_KUBE_TOKEN}}}]`,
      "contexts: [{name: test, context: {cluster: unreachable, user: gmsa}}]",
      "current-context: test",
      "",
    ].join("\n"),
  );
  return {
    KUBECONFIG: kubeconfig,
    CALLER_AUTH: "bearer",
    CALLER_AUTH_TOKENS: CALLER_TOKEN,
    LOG_LEVEL: "info",
    ...overrides,
  };
}
