/** The doctor's view of a local cluster for e2e tests, as the admin or as an operator bound to doctor's roles. */
import type { DoctorCluster } from "../../../cli/doctor/findings.ts";
import { applyObjects, loadManifest, objectPath, type KubeObject } from "../../../infra/local/apply.ts";
import { kubeRequest, type KubeEndpoint } from "../../../infra/local/kube-request.ts";

/** A {@link DoctorCluster} over infra/local/kube-request.ts; `headers` on every request (e.g. `Impersonate-User`). */
export function doctorClusterOf(endpoint: KubeEndpoint, headers?: Record<string, string>): DoctorCluster {
  return {
    async request({ method, path, query, body }) {
      const search = query === undefined ? "" : `?${new URLSearchParams(query).toString()}`;
      const response = await kubeRequest(endpoint, `${path}${search}`, {
        method,
        ...(body === undefined ? {} : { body }),
        ...(headers === undefined ? {} : { headers }),
      });
      return { status: response.status, body: response.body, warnings: [] };
    },
  };
}

/** Where an operator's namespaced roles are bound. */
export interface OperatorNamespaces {
  /** Where the probes' pods are dry-run created (gmsa-webhooks:kubectl-gmsa-dry-run). */
  probe: string;
  /** Where the functions' Services are, for /readyz through the service proxy (gmsa-webhooks:kubectl-gmsa-doctor-proxy). */
  functions?: string;
}

/**
 * Applies the roles docs/doctor.md names (infra/rbac/kubectl-gmsa-reader.yaml and kubectl-gmsa-doctor.yaml) bound to
 * `user` alone, as docs/doctor.md says to bind them.
 * @returns the doctor's view as that user (the admin impersonating it), and `remove()`, which deletes what it applied.
 */
export async function bindDoctorOperator(admin: KubeEndpoint, user: string, namespaces: OperatorNamespaces) {
  const roles = [
    ...(await loadManifest("rbac/kubectl-gmsa-reader.yaml")),
    ...(await loadManifest("rbac/kubectl-gmsa-doctor.yaml")),
  ];
  const bind = (role: string, namespace?: string): KubeObject => ({
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: namespace === undefined ? "ClusterRoleBinding" : "RoleBinding",
    metadata: { name: `${role.replace(":", "-")}-${user}`, ...(namespace === undefined ? {} : { namespace }) },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role },
    subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: user }],
  });
  const bindings = [
    bind("gmsa-webhooks:kubectl-gmsa-reader"),
    bind("gmsa-webhooks:kubectl-gmsa-doctor"),
    bind("gmsa-webhooks:kubectl-gmsa-dry-run", namespaces.probe),
    ...(namespaces.functions === undefined
      ? []
      : [bind("gmsa-webhooks:kubectl-gmsa-doctor-proxy", namespaces.functions)]),
  ];
  await applyObjects(admin, [...roles, ...bindings]);
  return {
    cluster: doctorClusterOf(admin, { "Impersonate-User": user, "Impersonate-Group": "system:authenticated" }),
    async remove() {
      for (const object of [...bindings, ...roles]) await kubeRequest(admin, objectPath(object), { method: "DELETE" });
    },
  };
}
