/**
 * Builds (once) and starts the local cluster for all e2e files, and stops it afterwards: kube-apiserver of
 * `KUBE_VERSION` (e.g. `1.30`), default the newest pinned release (infra/local/kube-versions.ts); tests read
 * it as `inject("cluster").kubeVersion`.
 * Test files get its {@link LocalClusterInfo} with `inject("cluster")`, and the bearer token the API
 * server sends to every webhook (`CALLER_AUTH=bearer`) with `inject("callerToken")` (also
 * `cluster.webhookCallerToken`), and the path of the `helm` binary built from infra/local/helm with
 * `inject("helm")`. It also builds the local node's binaries of the same version and the image
 * (helm-in-cluster.test.ts starts its own cluster with a node).
 */
import type { TestProject } from "vitest/node";
import { ensureBinaries, ensureHelm } from "../../infra/local/build.ts";
import { ensureNodeBinaries } from "../../infra/local/node-binaries.ts";
import { ensureImage } from "../../infra/node/image.ts";
import { startCluster, type LocalClusterInfo } from "../../infra/local/cluster.ts";
import { createCallerToken } from "../../infra/local/webhook-caller-auth.ts";

declare module "vitest" {
  export interface ProvidedContext {
    cluster: LocalClusterInfo;
    callerToken: string;
    helm: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const binaries = await ensureBinaries();
  const helm = await ensureHelm();
  // The real node's programs and the image (helm-in-cluster.test.ts), built here, before any test's timeout runs:
  // minutes on a fresh machine, nothing once cached. The node is of the API server's version (version skew).
  await ensureNodeBinaries(binaries.kubeVersion);
  await ensureImage();
  const started = Date.now();
  const callerToken = createCallerToken();
  const cluster = await startCluster({ binaries, webhookCallerToken: callerToken });
  console.error(`[e2e] Kubernetes ${cluster.kubeVersion} ready at ${cluster.server} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const { issueServingCertificate: _issue, stopServer: _stopServer, startServer: _startServer, stop, ...info } = cluster;
  project.provide("cluster", info);
  project.provide("callerToken", callerToken);
  project.provide("helm", helm);
  return stop;
}
