/** The doctor's view of a local cluster for e2e tests: the admin user, as an operator's kubeconfig would give. */
import type { DoctorCluster } from "../../../functions/cli/doctor/findings.ts";
import { kubeRequest, type KubeEndpoint } from "../../../infra/local/kube-request.ts";

/** A {@link DoctorCluster} over infra/local/kube-request.ts. */
export function doctorClusterOf(endpoint: KubeEndpoint): DoctorCluster {
  return {
    async request({ method, path, query, body }) {
      const search = query === undefined ? "" : `?${new URLSearchParams(query).toString()}`;
      const response = await kubeRequest(endpoint, `${path}${search}`, { method, ...(body === undefined ? {} : { body }) });
      return { status: response.status, body: response.body, warnings: [] };
    },
  };
}
