/** RBAC objects of the e2e files' and the bench's fixtures: roles, bindings and their subjects, for `applyObjects`. */
import type { V1PolicyRule } from "@kubernetes/client-node";
import type { KubeObject } from "../../infra/local/index.ts";

const API_GROUP = "rbac.authorization.k8s.io";

/** A Role in `namespace`, or a ClusterRole without one. */
export function role(name: string, rules: V1PolicyRule[], namespace?: string): KubeObject {
  return {
    apiVersion: `${API_GROUP}/v1`,
    kind: namespace === undefined ? "ClusterRole" : "Role",
    metadata: { name, ...(namespace === undefined ? {} : { namespace }) },
    rules,
  };
}

/** A ClusterRole granting `use` of the credspecs `names`. */
export const useCredSpecs = (name: string, names: readonly string[]): KubeObject =>
  role(name, [
    { apiGroups: ["windows.k8s.io"], resources: ["gmsacredentialspecs"], verbs: ["use"], resourceNames: [...names] },
  ]);

/** A RoleBinding in `namespace`, or a ClusterRoleBinding without one, of `roleRef` to `subjects`. */
export function binding(
  name: string,
  roleRef: { kind: "Role" | "ClusterRole"; name: string },
  subjects: readonly object[],
  namespace?: string,
): KubeObject {
  return {
    apiVersion: `${API_GROUP}/v1`,
    kind: namespace === undefined ? "ClusterRoleBinding" : "RoleBinding",
    metadata: { name, ...(namespace === undefined ? {} : { namespace }) },
    roleRef: { apiGroup: API_GROUP, ...roleRef },
    subjects,
  };
}

/** A user subject. */
export const user = (name: string) => ({ apiGroup: API_GROUP, kind: "User", name });

/** A service account subject. */
export const sa = (name: string, namespace: string) => ({ kind: "ServiceAccount", name, namespace });
