/**
 * What the webhooks and the ValidatingAdmissionPolicy are sent: the pod operations, the namespaces and the CEL that
 * keeps pods without a GMSA reference away. One definition, so the policy judges exactly the pods the webhooks see.
 */
import { commented } from "./notes.ts";

/** The match condition's name in the webhooks and the policy. */
export const MATCH_CONDITION_NAME = "has-gmsa-reference";

/**
 * The CEL expression that sends only pods mentioning a GMSA (annotation or field, pod or any container), now or
 * before an update so removals are seen, and every exec or attach but by members of system:masters.
 */
export const HAS_GMSA_REFERENCE = `request.operation == "CONNECT" ?
!(has(request.userInfo.groups) && "system:masters" in request.userInfo.groups) :
[object, oldObject].exists(o, o != null && (
  (has(o.metadata.annotations) && o.metadata.annotations.exists(k,
    k.endsWith("gmsa-credential-spec-name") || k.endsWith("gmsa-credential-spec"))) ||
  (has(o.spec.securityContext) && has(o.spec.securityContext.windowsOptions) &&
    (has(o.spec.securityContext.windowsOptions.gmsaCredentialSpecName) ||
     has(o.spec.securityContext.windowsOptions.gmsaCredentialSpec))) ||
  [has(o.spec.containers) ? o.spec.containers : [],
   has(o.spec.initContainers) ? o.spec.initContainers : [],
   has(o.spec.ephemeralContainers) ? o.spec.ephemeralContainers : []
  ].exists(list, list.exists(c,
    has(c.securityContext) && has(c.securityContext.windowsOptions) &&
    (has(c.securityContext.windowsOptions.gmsaCredentialSpecName) ||
     has(c.securityContext.windowsOptions.gmsaCredentialSpec))))))
`;

/** The match conditions of the webhooks and the policy: {@link HAS_GMSA_REFERENCE} alone. */
export function matchConditions(): { name: string; expression: string }[] {
  return [{ name: MATCH_CONDITION_NAME, expression: HAS_GMSA_REFERENCE }];
}

/**
 * The key the webhooks exempt namespaces by: the API server sets it to the namespace's name, so a namespace creator
 * cannot exempt their own namespace (docs/security.md, Which namespaces are enforced).
 */
export const EXEMPTION_KEY = "kubernetes.io/metadata.name";

/** The namespaces exempt as shipped; operators list their own (the chart's value, the overlays' component). */
export const EXEMPT_NAMESPACES = ["kube-system"] as const;

/** Every namespace but {@link EXEMPT_NAMESPACES}, by {@link EXEMPTION_KEY}. */
export function namespaceSelector() {
  return {
    matchExpressions: [{ key: EXEMPTION_KEY, operator: "NotIn", values: [...EXEMPT_NAMESPACES] }],
  };
}

/** One admission rule on pods; `scope` is for webhooks only (a policy's resourceRules have none). */
type PodRule = {
  apiGroups: string[];
  apiVersions: string[];
  operations: string[];
  resources: string[];
  scope?: "Namespaced";
};

/** Pod creates and updates, and ephemeral containers added through their subresource. */
export function podRules(withScope: boolean): PodRule[] {
  const rule = (operations: string[], resources: string[]): PodRule => ({
    apiGroups: [""],
    apiVersions: ["v1"],
    operations,
    resources,
    ...(withScope ? { scope: "Namespaced" as const } : {}),
  });
  return commented([rule(["CREATE", "UPDATE"], ["pods"]), rule(["UPDATE"], ["pods/ephemeralcontainers"])], {
    1: "Ephemeral containers are added through this subresource, never by a pod UPDATE.",
  });
}

/** exec and attach into a pod, which authorize reviews (REVIEW_REQUESTING_USER ephemeral or always). */
export function connectRule(): PodRule {
  return {
    apiGroups: [""],
    apiVersions: ["v1"],
    operations: ["CONNECT"],
    resources: ["pods/exec", "pods/attach"],
    scope: "Namespaced",
  };
}
