/**
 * The chart on a real node: `npm run dev -- --in-cluster` and the e2e tier's in-cluster tests. Starts the control
 * plane with the flags the node needs, the node itself (node.ts) with the production image (`npm run image`)
 * imported, and installs infra/deploy/helm/gmsa-webhooks in `inCluster` mode with the project's Helm, then waits until both
 * functions have their replicas Ready behind their Services.
 */
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { CHART_DIR } from "../build/helm/chart-dir.ts";
import { ensureImage, type ImageInfo } from "../build/node/image.ts";
import { ensureHelm } from "../build/tools/go-build.ts";
import { createHelmRunner, type HelmResult } from "../build/tools/helm-runner.ts";
import { applyObjects, loadManifest } from "./apply.ts";
import { ensureBinaries } from "./build.ts";
import { adminEndpoint, startCluster, type LocalCluster } from "./cluster.ts";
import { kubeRequest } from "./kube-request.ts";
import { ensureNodeBinaries } from "./node-binaries.ts";
import { apiserverNodeFlags, NODE_TOLERATION, POD_CIDR } from "./node-config.ts";
import { assertNoLiveNode } from "./node-host.ts";
import { startNode, type LocalNode } from "./node.ts";
import { issueClientCertificate } from "./pki.ts";
import { createCallerToken } from "./webhook-caller-auth.ts";

/** The two functions, each a Deployment of the chart. */
export const IN_CLUSTER_FUNCTIONS = ["expand", "authorize"] as const;

/** A cluster with a node and the chart installed. */
export interface InClusterStack {
  cluster: LocalCluster;
  node: LocalNode;
  image: ImageInfo;
  helm: string;
  /** The token the API server sends the functions (`callerAuth.mode: bearer`). */
  callerToken: string;
  /** Runs the project's Helm with its own HELM_*_HOME and the admin kubeconfig; `values` go in as a file. */
  runHelm(args: string[], values?: unknown): Promise<HelmResult>;
  stop(): Promise<void>;
}

/** Options for {@link startInClusterStack}. */
export interface StartInClusterOptions {
  /** Called with each step, for progress output. */
  progress?: (message: string) => void;
  /**
   * The Kubernetes version of the API server and the node alike (`1.30`; kube-versions.ts); default `KUBE_VERSION`,
   * then the newest pinned. Both are built from the same release: a kubelet must not be newer than its API server.
   */
  kubeVersion?: string;
}

/** Flags for the API server to reach and verify the node's kubelet, with a client certificate made for it. */
async function nodeApiserverArgs(ca: Parameters<typeof issueClientCertificate>[0], dir: string): Promise<string[]> {
  const client = await issueClientCertificate(
    ca,
    join(dir, "certs"),
    "apiserver-kubelet-client",
    "kube-apiserver-kubelet-client",
    "system:masters",
  );
  return apiserverNodeFlags(ca.certFile, client.certFile, client.keyFile);
}

/**
 * Chart values for an install on the local node: the imported image, never pulled (the chart installs the CRD); bearer caller auth with the
 * token the API server sends; the node's taint tolerated; the NetworkPolicy's control plane is the node's bridge, where the API server's
 * connections to pods come from (nothing enforces it: the bridge plugin has no policy support).
 */
export function localNodeValues(image: ImageInfo, callerToken: string): Record<string, unknown> {
  const [repository, tag] = image.name.replace(/^docker\.io\/library\//, "").split(":");
  return {
    image: { repository, tag, imagePullPolicy: "Never" },
    callerAuth: { mode: "bearer", expand: callerToken, authorize: callerToken },
    networkPolicy: { controlPlaneCIDRs: [POD_CIDR] },
    tolerations: [NODE_TOLERATION],
  };
}

/**
 * Applies infra/deploy/samples (the service account gmsa-app, its RBAC, the credspecs webapp01 and webapp02) once the
 * chart's CRD serves them.
 * @throws Error when they still cannot be created after `timeoutMs`.
 */
export async function applySamples(cluster: LocalCluster, timeoutMs = 30_000): Promise<void> {
  const objects = [...(await loadManifest("samples/rbac.yaml")), ...(await loadManifest("samples/credspecs.yaml"))];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await applyObjects(adminEndpoint(cluster), objects);
      return;
    } catch (error) {
      // The CRD the chart just created is not Established for a moment.
      if (Date.now() > deadline) throw error;
      await sleep(500);
    }
  }
}

/**
 * Waits until each function's Deployment `<fullname>-<fn>` in `namespace` has `replicas` updated, Ready replicas.
 * @throws Error naming the Deployments' status after `timeoutMs`.
 */
export async function waitForDeployments(
  cluster: LocalCluster,
  namespace: string,
  fullname: string,
  replicas: number,
  timeoutMs = 180_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const statuses = await Promise.all(
      IN_CLUSTER_FUNCTIONS.map((fn) =>
        kubeRequest<{ status?: { readyReplicas?: number; updatedReplicas?: number; replicas?: number } }>(
          adminEndpoint(cluster),
          `/apis/apps/v1/namespaces/${namespace}/deployments/${fullname}-${fn}`,
        ),
      ),
    );
    const ready = statuses.every(
      (s) =>
        s.status === 200 &&
        s.body.status?.readyReplicas === replicas &&
        s.body.status.updatedReplicas === replicas &&
        s.body.status.replicas === replicas,
    );
    if (ready) return;
    if (Date.now() > deadline) {
      const last = JSON.stringify(statuses.map((s) => s.body.status ?? s.status));
      throw new Error(
        `Deployments ${fullname}-expand/-authorize not ${replicas} Ready replicas after ${timeoutMs} ms: ${last}`,
      );
    }
    await sleep(500);
  }
}

/**
 * Builds what is missing (API server, Helm, node binaries, image), starts the cluster and the node, and returns the
 * stack; install the chart with {@link InClusterStack.runHelm}.
 * @throws Error when a part fails to build or start (another node on this machine included); nothing is left behind.
 */
export async function startInClusterStack(options: StartInClusterOptions = {}): Promise<InClusterStack> {
  const progress = options.progress ?? ((): void => undefined);
  assertNoLiveNode();
  progress("checking kube-apiserver, etcd, Helm and the node's binaries (built from source on first use: minutes)");
  const kubeVersion = options.kubeVersion ?? process.env.KUBE_VERSION;
  const binaries = await ensureBinaries(kubeVersion);
  const helm = await ensureHelm();
  const nodeBinaries = await ensureNodeBinaries(kubeVersion);
  progress("checking the image (npm run image)");
  const image = await ensureImage();
  const callerToken = createCallerToken();
  progress(`starting etcd and kube-apiserver ${binaries.kubeVersion}`);
  const cluster = await startCluster({
    binaries,
    webhookCallerToken: callerToken,
    extraApiserverArgs: nodeApiserverArgs,
  });
  let node: LocalNode | undefined;
  const helmRunner = await createHelmRunner(helm);
  const stop = async (): Promise<void> => {
    await node?.stop();
    await cluster.stop();
    await helmRunner.close();
  };
  try {
    progress("starting the node: containerd, kubelet, kube-controller-manager, kube-scheduler");
    node = await startNode(cluster, { binaries: nodeBinaries, images: [image.archive] });
  } catch (error) {
    await stop();
    throw error;
  }
  const runHelm = (args: string[], values?: unknown): Promise<HelmResult> =>
    helmRunner.run(args, { ...(values === undefined ? {} : { values }), kubeconfig: cluster.adminKubeconfig });
  return { cluster, node: node, image, helm, callerToken, runHelm, stop };
}

/** `helm install <release> infra/deploy/helm/gmsa-webhooks -n <namespace> --create-namespace` with `values`. */
export async function installChart(
  stack: InClusterStack,
  release: string,
  namespace: string,
  values: unknown,
): Promise<void> {
  const installed = await stack.runHelm(["install", release, CHART_DIR, "-n", namespace, "--create-namespace"], values);
  if (installed.code !== 0) throw new Error(`helm install failed (exit ${installed.code}): ${installed.stderr}`);
}
