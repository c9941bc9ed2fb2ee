/**
 * Prepares what the selected e2e files need (test/tiers.ts, for `KUBE_VERSION`), then starts the local cluster for all
 * of them and stops it afterwards. Test files read its {@link LocalClusterInfo} with `inject("cluster")`, the bearer
 * token the API server sends to every webhook with `inject("callerToken")`, and Helm's path with `inject("helm")`.
 */
import type { TestProject } from "vitest/node";
import { createCallerToken, ensureBinaries, startCluster, type LocalClusterInfo } from "../../infra/local/index.ts";
import { ensureHelm } from "../../infra/build/tools/go-build.ts";
import { prepare, STEPS } from "../prepare.ts";
import { selectedFiles, tierNamed } from "../tiers.ts";

declare module "vitest" {
  export interface ProvidedContext {
    cluster: LocalClusterInfo;
    callerToken: string;
    /** Empty when no selected file needs Helm. */
    helm: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const steps = tierNamed("e2e").needs(await selectedFiles(project), process.env.KUBE_VERSION);
  await prepare(steps);
  const binaries = await ensureBinaries(process.env.KUBE_VERSION);
  const helm = steps.includes(STEPS.helm) ? await ensureHelm() : "";
  const started = Date.now();
  const callerToken = createCallerToken();
  const cluster = await startCluster({ binaries, webhookCallerToken: callerToken });
  console.error(
    `[e2e] Kubernetes ${cluster.kubeVersion} ready at ${cluster.server} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  // provide() takes what survives JSON: LocalClusterInfo, without the cluster's methods.
  project.provide("cluster", JSON.parse(JSON.stringify(cluster)) as LocalClusterInfo);
  project.provide("callerToken", callerToken);
  project.provide("helm", helm);
  return () => cluster.stop();
}
