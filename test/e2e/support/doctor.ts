/**
 * An operator of `kubectl gmsa doctor` for e2e tests: a ServiceAccount of its own with a token the API server issued,
 * in a kubeconfig the real CLI is run with, so every request (access reviews included) is the operator's, not the
 * admin's impersonating it.
 */
import { join } from "node:path";
import {
  adminEndpoint,
  applyObjects,
  kubeRequest,
  kubeRequestOk,
  loadManifest,
  objectPath,
  type KubeObject,
  type LocalClusterInfo,
} from "../../../infra/local/index.ts";
import { writeKubeconfig } from "../../../infra/local/kubeconfig.ts";

/** Where an operator's namespaced roles are bound. */
export interface OperatorNamespaces {
  /** Where the probes' pods are dry-run created (gmsa-webhooks:kubectl-gmsa-dry-run). */
  probe: string;
  /** Where the functions' Services are, for /readyz through the service proxy (gmsa-webhooks:kubectl-gmsa-doctor-proxy). */
  functions?: string;
}

/** Where the operator's ServiceAccount lives. */
const OPERATOR_NAMESPACE = "default";

/**
 * Creates the ServiceAccount `name` and a kubeconfig holding a one-hour token of it; `bind` applies the roles
 * docs/doctor.md names (infra/deploy/rbac/kubectl-gmsa-reader.yaml and kubectl-gmsa-doctor.yaml), bound to it alone as
 * docs/doctor.md says to bind them; `remove` deletes what was applied, the ServiceAccount included.
 */
export async function createDoctorOperator(cluster: LocalClusterInfo, name: string) {
  const admin = adminEndpoint(cluster);
  const account: KubeObject = {
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: { name, namespace: OPERATOR_NAMESPACE },
  };
  await applyObjects(admin, [account]);
  const issued = await kubeRequestOk<{ status: { token: string } }>(admin, `${objectPath(account)}/token`, {
    method: "POST",
    body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { expirationSeconds: 3600 } },
  });
  const kubeconfig = await writeKubeconfig({
    path: join(cluster.dir, `${name}.kubeconfig`),
    server: cluster.server,
    caPem: cluster.caPem,
    name,
    user: { token: issued.status.token },
  });
  const applied: KubeObject[] = [];
  return {
    kubeconfig,
    async bind(namespaces: OperatorNamespaces): Promise<void> {
      const roles = [
        ...(await loadManifest("rbac/kubectl-gmsa-reader.yaml")),
        ...(await loadManifest("rbac/kubectl-gmsa-doctor.yaml")),
      ];
      const bind = (role: string, namespace?: string): KubeObject => ({
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: namespace === undefined ? "ClusterRoleBinding" : "RoleBinding",
        metadata: { name: `${role.replace(":", "-")}-${name}`, ...(namespace === undefined ? {} : { namespace }) },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role },
        subjects: [{ kind: "ServiceAccount", name, namespace: OPERATOR_NAMESPACE }],
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
      applied.push(...bindings, ...roles);
    },
    async remove(): Promise<void> {
      for (const object of [...applied, account]) await kubeRequest(admin, objectPath(object), { method: "DELETE" });
    },
  };
}
