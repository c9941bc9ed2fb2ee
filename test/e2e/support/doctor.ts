/** The doctor's view of a local cluster for e2e tests: the admin user, as an operator's kubeconfig would give. */
import type { DoctorCluster } from "../../../functions/cli/doctor/findings.ts";
import { kubeRequest, type KubeEndpoint } from "../../../infra/local/kube-request.ts";

/** A {@link DoctorCluster} over infra/local/kube-request.ts; `headers` on every request (e.g. `Impersonate-User`). */
export function doctorClusterOf(endpoint: KubeEndpoint, headers?: Record<string, string>): DoctorCluster {
  return {
    async request({ method, path, query, body }) {
      const search = query === undefined ? "" : `?${new URLSearchParams(query).toString()}`;
      const response = await kubeRequest(endpoint, `${path}${search}`, { method, ...(body === undefined ? {} : { body }), ...(headers === undefined ? {} : { headers }) });
      return { status: response.status, body: response.body, warnings: [] };
    },
  };
}
