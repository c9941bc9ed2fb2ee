/**
 * The webhook configurations as infra/webhooks/*.yaml and the chart ship them, less `clientConfig`; a unit test
 * (expected-webhooks.test.ts) holds this copy equal to both, so they cannot drift.
 */
import type { FunctionName } from "../../../shared/config/index.ts";

/** The CEL expression that sends only pods mentioning a GMSA, now or before an update. */
const HAS_GMSA_REFERENCE = `[object, oldObject].exists(o, o != null && (
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

const rules = [
  { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"], scope: "Namespaced" },
  { apiGroups: [""], apiVersions: ["v1"], operations: ["UPDATE"], resources: ["pods/ephemeralcontainers"], scope: "Namespaced" },
];

/** The opt-out of kubernetes-sigs/windows-gmsa: every namespace but those labelled `windows.k8s.io/disabled: "true"`. */
export const OPT_OUT_EXPRESSION = { key: "windows.k8s.io/disabled", operator: "NotIn", values: ["true"] };

/** The annotation that keeps AKS's Admissions Enforcer from rewriting the namespaceSelector. */
export const AKS_OPT_OUT_ANNOTATION = "admissions.enforcer/disabled";

const common = {
  rules,
  namespaceSelector: { matchExpressions: [OPT_OUT_EXPRESSION] },
  matchConditions: [{ name: "has-gmsa-reference", expression: HAS_GMSA_REFERENCE }],
  failurePolicy: "Fail",
  sideEffects: "None",
  timeoutSeconds: 10,
  admissionReviewVersions: ["v1"],
};

/** One function's configuration: its kind, the name infra/webhooks gives it, and its webhook less clientConfig. */
function expected(fn: FunctionName, kind: `${"Mutating" | "Validating"}WebhookConfiguration`, extra?: { reinvocationPolicy: string }) {
  // The chart names configurations `<fullname>-<fn>`, so the doctor finds both by webhook name.
  return { kind, configName: `gmsa-webhooks-${fn}`, webhook: { name: `${fn}.gmsa-webhooks.windows.k8s.io`, ...common, ...extra } };
}

/** What the doctor expects of each function's webhook configuration. */
export const EXPECTED_WEBHOOKS: Record<FunctionName, ReturnType<typeof expected>> = {
  expand: expected("expand", "MutatingWebhookConfiguration", { reinvocationPolicy: "IfNeeded" }),
  authorize: expected("authorize", "ValidatingWebhookConfiguration"),
};
