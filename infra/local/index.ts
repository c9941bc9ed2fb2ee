/**
 * The local cluster's API, for the tests, the benchmarks and `npm run dev`: start a control plane
 * ({@link startCluster}), the functions in front of it ({@link startFunctions}), a real node ({@link startNode}) or
 * all of that with the chart installed ({@link startInClusterStack}); apply manifests and call the API server as its
 * admin. The other files of infra/local are its parts (README.md lists them).
 */
export {
  adminEndpoint,
  issueClusterServingCertificate,
  startCluster,
  type ControlPlaneServer,
  type LocalCluster,
  type LocalClusterInfo,
  type StartClusterOptions,
} from "./cluster.ts";
export { ensureBinaries, type LocalBinaries } from "./build.ts";
export {
  applyFunctionsWebhooks,
  startFunctions,
  type FunctionsRuntime,
  type FunctionsStack,
  type StartFunctionsOptions,
} from "./stack.ts";
export { startNode, type LocalNode, type StartNodeOptions } from "./node.ts";
export { ensureNodeBinaries, type NodeBinaries } from "./node-binaries.ts";
export {
  applySamples,
  installChart,
  IN_CLUSTER_FUNCTIONS,
  startInClusterStack,
  waitForDeployments,
  type InClusterStack,
  type StartInClusterOptions,
} from "./in-cluster.ts";
export {
  applyBaseInfra,
  applyObjects,
  applyWebhooks,
  deleteWebhooks,
  loadManifest,
  objectPath,
  renderWebhooks,
  type ApplyWebhooksOptions,
  type KubeObject,
} from "./apply.ts";
export {
  kubeRequest,
  kubeRequestOk,
  type KubeEndpoint,
  type KubeRequestOptions,
  type KubeResponse,
} from "./kube-request.ts";
export { createCallerToken } from "./webhook-caller-auth.ts";
