/**
 * Both webhook configurations present, found by webhook name (URL installs and the chart's alike), as we ship them:
 * the objects infra/deploy/webhooks/*.yaml and the chart's files are generated from (infra/build/manifests/webhooks.ts), less
 * `clientConfig`.
 */
import type { V1MutatingWebhook } from "@kubernetes/client-node";
import { isDeepStrictEqual } from "node:util";
import { EXEMPTION_KEY } from "../../infra/build/manifests/selection.ts";
import { WEBHOOK_CONFIGURATIONS } from "../../infra/build/manifests/webhooks.ts";
import { FUNCTION_NAMES, type FunctionName } from "../../shared/config/index.ts";
import { finding, type Finding } from "./findings.ts";

/** The opt-out label of kubernetes-sigs/windows-gmsa, which any namespace creator can set: no longer honoured. */
export const OLD_OPT_OUT_LABEL = "windows.k8s.io/disabled";

/** The annotation that keeps AKS's Admissions Enforcer from rewriting the namespaceSelector. */
const AKS_OPT_OUT_ANNOTATION = "admissions.enforcer/disabled";

/**
 * Set to `warn` on authorize's configuration by the chart (authorize.env.ENFORCEMENT=warn) and by the overlays'
 * components/shadow-mode: authorize runs in shadow mode, where failurePolicy Ignore is intended (it never blocks).
 */
export const SHADOW_MODE_ANNOTATION = "gmsa-webhooks.windows.k8s.io/enforcement";

/** What the doctor expects of one function's webhook: its configuration's kind and name, its webhook less clientConfig. */
export interface ExpectedWebhook {
  kind: (typeof WEBHOOK_CONFIGURATIONS)[FunctionName]["kind"];
  /** The chart names configurations `<fullname>-<fn>`, so the doctor finds both by webhook name, not this. */
  configName: string;
  webhook: Omit<(typeof WEBHOOK_CONFIGURATIONS)[FunctionName]["webhooks"][number], "clientConfig"> & {
    reinvocationPolicy?: string;
  };
}

/** One function's expectation, from the shipped configuration. */
function expected(fn: FunctionName): ExpectedWebhook {
  const { kind, metadata, webhooks } = WEBHOOK_CONFIGURATIONS[fn];
  const { clientConfig: _clientConfig, ...webhook } = webhooks[0]!;
  return { kind, configName: metadata.name, webhook };
}

/** What the doctor expects of each function's webhook configuration. */
export const EXPECTED_WEBHOOKS: Record<FunctionName, ExpectedWebhook> = {
  expand: expected("expand"),
  authorize: expected("authorize"),
};

/** One webhook entry of a configuration, as listed (a mutating one holds every field a validating one has). */
type Webhook = Partial<V1MutatingWebhook> & { name: string };

/** A webhook configuration as listed by the API server (the fields the doctor reads). */
export type WebhookConfiguration = {
  metadata: { name: string; annotations?: Record<string, string> };
  webhooks?: Webhook[];
};

/** A function's webhook, where the doctor found it. */
export type FoundWebhook = { fn: FunctionName; configName: string; webhook: Webhook };

/**
 * Helm 4 applies server-side: a field another manager changed (`kubectl patch`, `kubectl edit`) is a conflict that
 * fails `helm upgrade` until `--force-conflicts` (a Helm 4 flag) takes it back.
 */
const FIX_APPLY =
  "apply infra/deploy/webhooks (or an overlay of it) again, or `helm upgrade --force-conflicts` the release (Helm 4)";

/** Differences in white space only do not matter in a CEL expression (YAML tools re-indent block scalars). */
const squashed = ({ name, expression }: { name: string; expression: string }) => ({
  name,
  expression: expression.replace(/\s+/g, " ").trim(),
});

/** A label selector's clauses; `{}`, the API server's default for an absent objectSelector, selects every object. */
type Selector = { matchLabels?: Record<string, string>; matchExpressions?: unknown[] } | undefined;
const selectsAll = (selector: Selector) =>
  Object.keys(selector?.matchLabels ?? {}).length === 0 && (selector?.matchExpressions ?? []).length === 0;
const sameSelector = (a: Selector, b: Selector) =>
  selectsAll(a) ? selectsAll(b) : isDeepStrictEqual({ ...a }, { ...b });

/**
 * Each difference from what we ship is one finding; `index`: the webhook's place in its configuration; `shadow`:
 * authorize in shadow mode, whose failurePolicy is Ignore.
 */
function compareWebhook(
  fn: FunctionName,
  configName: string,
  webhook: Webhook,
  index: number,
  shadow: boolean,
): Finding[] {
  const { kind, webhook: expected } = EXPECTED_WEBHOOKS[fn];
  const sameRules = isDeepStrictEqual(webhook.rules, expected.rules);
  const sameConditions = isDeepStrictEqual(
    webhook.matchConditions?.map(squashed),
    expected.matchConditions.map(squashed),
  );
  const answered = webhook.admissionReviewVersions?.some((v) => v === "v1" || v === "v1beta1") === true;
  const failsClosed = webhook.failurePolicy === expected.failurePolicy;
  const failsOpen = webhook.failurePolicy === "Ignore";
  const reinvoked =
    expected.reinvocationPolicy === undefined || webhook.reinvocationPolicy === expected.reinvocationPolicy;
  const expressions = webhook.namespaceSelector?.matchExpressions ?? [];
  const labels = webhook.namespaceSelector?.matchLabels ?? {};
  const selfService = expressions.some((e) => e.key === OLD_OPT_OUT_LABEL) || OLD_OPT_OUT_LABEL in labels;
  const narrower =
    expressions.some((e) => e.key !== EXEMPTION_KEY || e.operator !== "NotIn") || Object.keys(labels).length > 0;
  // The shipped webhooks select every pod; the type allows one that does not.
  const shippedObjects = (expected as { objectSelector?: Selector }).objectSelector;
  const differences: [field: string, status: "fail" | "warn", differs: boolean, why: string, fix?: string][] = [
    [
      "rules",
      "fail",
      !sameRules,
      "differ from the shipped rules (pods CREATE/UPDATE, pods/ephemeralcontainers UPDATE)",
    ],
    [
      "matchConditions",
      "fail",
      !sameConditions,
      "differ from has-gmsa-reference as shipped: non-GMSA pods may be sent, or GMSA pods missed",
    ],
    // Enforcing authorize that fails open admits unchecked pods; expand failing open leaves them to authorize's 422.
    [
      "failurePolicy",
      fn === "authorize" ? "fail" : "warn",
      !shadow && !failsClosed,
      `is ${webhook.failurePolicy}, not Fail: ${fn === "authorize" ? "GMSA pods are admitted unchecked while authorize is down (ENFORCEMENT=warn is shadow mode's place for Ignore)" : "GMSA pods are refused by authorize (422) rather than expanded while expand is down"}`,
    ],
    [
      "failurePolicy",
      "warn",
      shadow && !failsOpen,
      `is ${webhook.failurePolicy} in shadow mode (${SHADOW_MODE_ANNOTATION}: warn): pods are refused while authorize is down, though shadow mode should never block; set it to Ignore`,
    ],
    [
      "timeoutSeconds",
      "warn",
      webhook.timeoutSeconds !== expected.timeoutSeconds,
      `is ${webhook.timeoutSeconds}, not ${expected.timeoutSeconds}`,
    ],
    ["sideEffects", "fail", webhook.sideEffects !== expected.sideEffects, "is not None: dry-run requests are refused"],
    ["admissionReviewVersions", "fail", !answered, "names neither v1 nor v1beta1, the versions the functions answer"],
    [
      "reinvocationPolicy",
      "warn",
      !reinvoked,
      `is not ${expected.reinvocationPolicy}: a GMSA name added by a later webhook is not expanded`,
    ],
    [
      "namespaceSelector",
      "fail",
      selfService,
      `honours ${OLD_OPT_OUT_LABEL}, which whoever creates a namespace can set: they can opt their own namespace out`,
    ],
    [
      "namespaceSelector",
      "warn",
      !selfService && narrower,
      `has more than the exemption ${EXEMPTION_KEY} NotIn: GMSA pods in the namespaces it leaves out are not checked`,
    ],
    // Pod authors set their pods' labels, so any selector on them is a self-service opt-out, as windows.k8s.io/disabled is.
    [
      "objectSelector",
      "fail",
      !sameSelector(webhook.objectSelector, shippedObjects),
      "differs from the shipped one, which selects every pod: whoever creates a pod can label it out of review",
      // The shipped files set no objectSelector, so applying them again leaves another one in place.
      `remove it: kubectl patch ${kind.toLowerCase()} ${configName} --type json -p '[{"op":"remove","path":"/webhooks/${index}/objectSelector"}]'`,
    ],
  ];
  return differences
    .filter(([, , differs]) => differs)
    .map(([field, status, , why, fix]) =>
      finding(`webhooks/${fn}`, status, `${kind} ${configName}: ${field} ${why}`, fix ?? FIX_APPLY),
    );
}

/** The namespaces some found webhook exempts by name (`kubernetes.io/metadata.name NotIn`): it never reviews their pods. */
export function exemptNamespaces(found: readonly FoundWebhook[]): ReadonlySet<string> {
  const expressions = found.flatMap((f) => f.webhook.namespaceSelector?.matchExpressions ?? []);
  return new Set(
    expressions.filter((e) => e.key === EXEMPTION_KEY && e.operator === "NotIn").flatMap((e) => e.values ?? []),
  );
}

/**
 * Finds each function's webhook by name in the listed configurations and checks it (on AKS, also the Admissions
 * Enforcer opt-out annotation); the webhooks `found` feed the certificate and readiness checks.
 */
export function checkWebhookConfigurations(
  lists: Record<"mutating" | "validating", WebhookConfiguration[]>,
  isAks: boolean,
) {
  const findings: Finding[] = [];
  const found: FoundWebhook[] = [];
  for (const fn of FUNCTION_NAMES) {
    const { kind, webhook: expected } = EXPECTED_WEBHOOKS[fn];
    const configs = kind === "MutatingWebhookConfiguration" ? lists.mutating : lists.validating;
    const matches = configs.flatMap((config) =>
      (config.webhooks ?? []).filter((w) => w.name === expected.name).map((webhook) => ({ config, webhook })),
    );
    const check = `webhooks/${fn}`;
    if (matches.length === 0) {
      findings.push(
        finding(
          check,
          "fail",
          `no ${kind} holds webhook ${expected.name}: ${fn} is not registered, GMSA pods go unchecked`,
          FIX_APPLY,
        ),
      );
    } else if (matches.length > 1) {
      const names = matches.map((m) => m.config.metadata.name).join(", ");
      const message = `${matches.length} ${kind}s hold webhook ${expected.name} (${names}): every pod is sent to each`;
      findings.push(finding(check, "warn", message, "delete all but one"));
    }
    for (const { config, webhook } of matches) {
      const name = config.metadata.name;
      found.push({ fn, configName: name, webhook });
      const shadow = fn === "authorize" && config.metadata.annotations?.[SHADOW_MODE_ANNOTATION] === "warn";
      const differences = compareWebhook(fn, name, webhook, config.webhooks?.indexOf(webhook) ?? 0, shadow);
      findings.push(...differences);
      if (isAks && config.metadata.annotations?.[AKS_OPT_OUT_ANNOTATION] !== "true") {
        const message = `${kind} ${name} lacks ${AKS_OPT_OUT_ANNOTATION}: "true" on AKS: its Admissions Enforcer excludes kube-system and AKS's namespaces`;
        const fix = `kubectl annotate ${kind.toLowerCase()} ${name} ${AKS_OPT_OUT_ANNOTATION}=true (the chart's webhooks.aksAdmissionsEnforcerOptOut)`;
        findings.push(finding(check, "warn", message, fix));
      }
      if (differences.length === 0) {
        const mode = shadow
          ? " for shadow mode (ENFORCEMENT=warn: failurePolicy Ignore, so it never blocks; switch to deny to enforce)"
          : "";
        findings.push(
          finding(
            check,
            "pass",
            `${kind} ${name}: rules, matchConditions, failurePolicy, timeoutSeconds, namespaceSelector and objectSelector as shipped${mode}`,
          ),
        );
      }
    }
  }
  return { findings, found };
}
