/**
 * Each function's identity (infra/deploy/rbac/): a ServiceAccount in the gmsa-webhooks namespace, a least-privilege
 * ClusterRole built from what the function calls (shared/kube/readiness.ts functionNeeds) and its binding.
 */
import type { V1ClusterRole, V1ClusterRoleBinding, V1Namespace, V1ServiceAccount } from "@kubernetes/client-node";
import type { FunctionName } from "../../../shared/config/index.ts";
import { functionNeeds } from "../../../shared/kube/readiness.ts";
import { commented } from "./notes.ts";

/** The namespace of the functions' ServiceAccounts. */
export const FUNCTIONS_NAMESPACE = "gmsa-webhooks";

/** A function's ServiceAccount (in {@link FUNCTIONS_NAMESPACE}). */
export const serviceAccountName = (fn: FunctionName) => `gmsa-${fn}`;

/** A function's ClusterRole and ClusterRoleBinding. */
export const clusterRoleName = (fn: FunctionName) => `gmsa-webhooks:${fn}`;

/** Why each rule is there, by resource; the readiness check's needs are the rest of the contract. */
const RULE_NOTES: Record<FunctionName, Record<string, string>> = {
  expand: { gmsacredentialspecs: "get by name only: expand never needs to list or watch credential specs." },
  authorize: {
    localsubjectaccessreviews:
      "LocalSubjectAccessReview is namespaced; the ClusterRoleBinding allows it in every namespace\n" +
      "that pods are admitted to.",
    pods:
      "The pod an exec or attach goes into: its admission request names the pod but carries\n" +
      "PodExecOptions or PodAttachOptions (REVIEW_REQUESTING_USER ephemeral or always).",
  },
};

/** A function's RBAC objects, in the order infra/deploy/rbac/<fn>.yaml holds them (expand's file declares the namespace). */
function buildRbac(fn: FunctionName) {
  // What the widest REVIEW_REQUESTING_USER calls, so switching the mode needs no new RBAC.
  const needs = functionNeeds(fn, "always");
  const rules = needs.map(({ verb, group, resource }) => ({
    apiGroups: [group],
    resources: [resource],
    verbs: [verb],
  }));
  const notes: Record<number, string> = {};
  needs.forEach((need, index) => {
    const note = RULE_NOTES[fn][need.resource];
    if (note !== undefined) notes[index] = note;
  });
  commented(rules, notes);
  const namespace = { apiVersion: "v1", kind: "Namespace", metadata: { name: FUNCTIONS_NAMESPACE } };
  return [
    ...(fn === "expand" ? [namespace satisfies V1Namespace] : []),
    {
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name: serviceAccountName(fn), namespace: FUNCTIONS_NAMESPACE },
    } satisfies V1ServiceAccount,
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: clusterRoleName(fn) },
      rules,
    } satisfies V1ClusterRole,
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name: clusterRoleName(fn) },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: clusterRoleName(fn) },
      subjects: [{ kind: "ServiceAccount", name: serviceAccountName(fn), namespace: FUNCTIONS_NAMESPACE }],
    } satisfies V1ClusterRoleBinding,
  ];
}

/** Each function's RBAC objects as infra/deploy/rbac/<fn>.yaml holds them. */
export const FUNCTION_RBAC: Record<FunctionName, object[]> = {
  expand: buildRbac("expand"),
  authorize: buildRbac("authorize"),
};

/** The header of infra/deploy/rbac/<fn>.yaml. */
export const RBAC_FILE_HEADERS: Record<FunctionName, string> = {
  expand: `Identity of the expand function (mutating webhook): it only reads credential specs.
The namespace below holds both functions' ServiceAccounts (authorize.yaml relies on it).`,
  authorize: `Identity of the authorize function (validating webhook): reads credential specs and asks
whether a pod's service account may \`use\` one. The gmsa-webhooks namespace is declared once, in
expand.yaml (kustomize refuses the same object twice in one base): to apply this file alone,
\`kubectl create namespace gmsa-webhooks\` first.`,
};
