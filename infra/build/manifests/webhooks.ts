/**
 * The two webhook configurations, registered by URL (infra/deploy/webhooks/, applied through an overlay or with envsubst),
 * as the chart's templates read their rules, namespaceSelector, matchConditions and timeout from, and as
 * `kubectl gmsa doctor` expects them (less clientConfig).
 */
import type { V1MutatingWebhookConfiguration, V1ValidatingWebhookConfiguration } from "@kubernetes/client-node";
import { FUNCTION_NAMES, type FunctionName } from "../../../shared/config/index.ts";
import { DEFAULT_WEBHOOK_TIMEOUT_MS } from "../../../shared/deadline.ts";
import { commented } from "./notes.ts";
import { connectRule, matchConditions, namespaceSelector, podRules } from "./selection.ts";

/** The kind of each function's configuration: expand mutates, authorize validates. */
export const WEBHOOK_KINDS = {
  expand: "MutatingWebhookConfiguration",
  authorize: "ValidatingWebhookConfiguration",
} as const satisfies Record<FunctionName, string>;

/** The configuration's name in infra/deploy/webhooks/ (the chart's is `<fullname>-<fn>`, by default the same). */
export const webhookConfigurationName = (fn: FunctionName) => `gmsa-webhooks-${fn}`;

/** The webhook's own name, by which the doctor finds it in any configuration. */
export const webhookName = (fn: FunctionName) => `${fn}.gmsa-webhooks.windows.k8s.io`;

/** The API server's default timeout, which the functions' review deadline also assumes (shared/deadline.ts). */
export const WEBHOOK_TIMEOUT_SECONDS = DEFAULT_WEBHOOK_TIMEOUT_MS / 1000;

/** The base URL placeholder of a function, substituted by infra/local/apply.ts, envsubst or the kustomize base. */
const baseUrlPlaceholder = (fn: FunctionName) => `\${${fn.toUpperCase()}_BASE_URL}`;

/** One function's webhook entry. */
function buildWebhook(fn: FunctionName) {
  const other = FUNCTION_NAMES.find((f) => f !== fn)!;
  const rules = podRules(true);
  if (fn === "authorize") {
    rules.push(connectRule());
    commented(rules, {
      2:
        "exec and attach run code in a running pod as its gMSA: with REVIEW_REQUESTING_USER ephemeral or\n" +
        "always, authorize reviews the requester's `use` of the pod's credspecs (docs/security.md).",
    });
  }
  const webhook = {
    name: webhookName(fn),
    clientConfig: { url: `${baseUrlPlaceholder(fn)}/${fn}`, caBundle: "${CA_BUNDLE}" },
    rules,
    namespaceSelector: namespaceSelector(),
    matchConditions: matchConditions(),
    failurePolicy: "Fail" as const,
    sideEffects: "None" as const,
    timeoutSeconds: WEBHOOK_TIMEOUT_SECONDS,
    admissionReviewVersions: ["v1"],
    ...(fn === "expand" ? { reinvocationPolicy: "IfNeeded" as const } : {}),
  };
  return commented(webhook, {
    namespaceSelector:
      "Every namespace but those the operator lists here (kube-system by default). The exemption keys on\n" +
      "kubernetes.io/metadata.name, which the API server sets and no namespace creator can choose; a label a\n" +
      "creator can set (windows-gmsa's windows.k8s.io/disabled) would let them opt their own namespace out\n" +
      "(docs/security.md). No system pod depends on us: matchConditions below keep every pod without a\n" +
      "GMSA reference away from the webhook.",
    matchConditions:
      "Only pods that mention a GMSA (now, or before this update, so removals are seen) are sent;\n" +
      `the same expression as in ${other}.yaml. A CEL error fails the request (failurePolicy). A\n` +
      "CONNECT (exec, attach) carries PodExecOptions or PodAttachOptions, not the pod, which the rest\n" +
      'cannot read ("no such key: metadata"): it is sent as it is, and authorize reads the pod, but\n' +
      "for members of system:masters, whom every access review allows: exec stays open to them\n" +
      "while authorize is down.",
    ...(fn === "expand"
      ? { reinvocationPolicy: "Run again if a later mutating webhook adds a GMSA name; expand is idempotent." }
      : {}),
  });
}

/** One function's webhook configuration, with `${<FN>_BASE_URL}` and `${CA_BUNDLE}` placeholders. */
function buildWebhookConfiguration(fn: FunctionName) {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: WEBHOOK_KINDS[fn],
    metadata: { name: webhookConfigurationName(fn) },
    webhooks: [buildWebhook(fn)],
  } satisfies V1MutatingWebhookConfiguration | V1ValidatingWebhookConfiguration;
}

/** Each function's webhook configuration as infra/deploy/webhooks/<fn>.yaml holds it. */
export const WEBHOOK_CONFIGURATIONS: Record<FunctionName, ReturnType<typeof buildWebhookConfiguration>> = {
  expand: buildWebhookConfiguration("expand"),
  authorize: buildWebhookConfiguration("authorize"),
};

/** The header of infra/deploy/webhooks/<fn>.yaml. */
export function webhookFileHeader(fn: FunctionName): string {
  const role = fn === "expand" ? "mutating" : "validating";
  return `The ${fn} function as a ${role} webhook, called by URL (the function runs outside the
cluster). Placeholders, substituted by infra/local/apply.ts or, by hand, with envsubst:
  ${baseUrlPlaceholder(fn)}: https URL the function is served at, without a trailing slash
  \${CA_BUNDLE}: base64 of the PEM CA that signed its certificate (delete the caBundle
    line when the certificate is publicly trusted)
With kustomize, apply an overlay instead (kubectl apply -k infra/deploy/overlays/<name>): the base in
kustomization.yaml replaces both placeholders, and ../overlays/README.md says what to set.`;
}
