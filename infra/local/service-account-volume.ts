/**
 * The volume the kubelet projects into every pod with a service account: a TokenRequest token for it, the
 * cluster CA and the namespace, mounted where client libraries, ours included, look in-cluster.
 */
import { SERVICE_ACCOUNT_DIR } from "../../functions/node/kube/load-kubeconfig.ts";
import { adminEndpoint, type LocalClusterInfo } from "./cluster.ts";
import { kubeRequestOk } from "./kube-request.ts";
import type { PodVolume } from "./pod-sandbox.ts";

/**
 * Mints a one-hour token for `namespace/serviceAccount` (as the admin) and returns the volume a pod of that
 * service account would have at {@link SERVICE_ACCOUNT_DIR}.
 * @throws Error when the service account does not exist.
 */
export async function serviceAccountVolume(cluster: LocalClusterInfo, namespace: string, serviceAccount: string): Promise<PodVolume> {
  const request = await kubeRequestOk<{ status: { token: string } }>(
    adminEndpoint(cluster),
    `/api/v1/namespaces/${namespace}/serviceaccounts/${serviceAccount}/token`,
    { method: "POST", body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { expirationSeconds: 3600 } } },
  );
  return {
    mountPath: SERVICE_ACCOUNT_DIR,
    files: { token: request.status.token, "ca.crt": cluster.caPem, namespace },
  };
}
