/**
 * The ValidatingAdmissionPolicy that enforces inside the API server what CEL can judge of the GMSA rules
 * (infra/deploy/policy/README.md), and its binding. The policy repeats one variable and one validation per credspec a pod
 * may name, so it is built here rather than written by hand.
 */
import type { V1ValidatingAdmissionPolicy, V1ValidatingAdmissionPolicyBinding } from "@kubernetes/client-node";
import { MAX_CREDSPECS_PER_POD } from "../../../shared/policy/checks.ts";
import { commented } from "./notes.ts";
import { matchConditions, namespaceSelector, podRules } from "./selection.ts";

/** The functions' `MAX_CREDSPECS_PER_POD`: the policy checks as many distinct names, and refuses more. */
export const DEFAULT_MAX_CREDSPECS = MAX_CREDSPECS_PER_POD;

/** The policy's name; the binding names it. */
export const POLICY_NAME = "gmsa-webhooks.windows.k8s.io";

/** `<x>.?securityContext.?windowsOptions.?<field>`: an optional, empty when any step is absent. */
const option = (x: string, field: string) => `${x}.?securityContext.?windowsOptions.?${field}`;

const indent = (text: string, spaces: number) =>
  text
    .split("\n")
    .map((line) => " ".repeat(spaces) + line)
    .join("\n");

/** The alpha annotation keys of shared/policy/pod-gmsa.ts, names and contents, pod and container level. */
const isGmsaAnnotationKey = (k: string) =>
  `${k} in ['pod.alpha.windows.kubernetes.io/gmsa-credential-spec-name', 'pod.alpha.windows.kubernetes.io/gmsa-credential-spec'] || ` +
  `${k}.endsWith('.container.alpha.windows.kubernetes.io/gmsa-credential-spec-name') || ` +
  `${k}.endsWith('.container.alpha.windows.kubernetes.io/gmsa-credential-spec')`;

/**
 * GMSA settings of pod `o` (fields of every place, alpha annotations), as maps of strings that compare by value
 * (map literals must be of one value type, hence the conversions).
 */
function settingsOf(o: string): string {
  const place = (label: string, x: string) =>
    `{'place': ${label}, ?'name': ${option(x, "gmsaCredentialSpecName")}.optMap(v, string(v)), ` +
    `?'contents': ${option(x, "gmsaCredentialSpec")}.optMap(v, string(v))}`;
  const list = (field: string, label: string) =>
    `${o}.spec.?${field}.orValue([]).map(c, ${place(`'${label} "' + c.name + '"'`, "c")})`;
  return [
    `[${place("'pod'", `${o}.spec`)}]`,
    list("containers", "container"),
    list("initContainers", "init container"),
    list("ephemeralContainers", "ephemeral container"),
    `${o}.metadata.?annotations.orValue({}).filter(k, ${isGmsaAnnotationKey("k")})` +
      `.map(k, {'place': 'annotation "' + k + '"', 'value': string(${o}.metadata.annotations[k])})`,
  ].join(" +\n");
}

const USE_CHECK =
  "authorizer.serviceAccount(request.namespace, variables.serviceAccount).group('windows.k8s.io')" +
  ".resource('gmsacredentialspecs').namespace(request.namespace).name(n).check('use').allowed()";

/** A variable; an expression of several lines ends with a line break, as a YAML literal block reads. */
const variable = (name: string, expression: string) => ({
  name,
  expression: expression.includes("\n") ? `${expression}\n` : expression,
});

/** The policy, checking up to `maxCredSpecs` distinct names per request; throws TypeError unless a positive integer. */
export function buildPolicy(maxCredSpecs = DEFAULT_MAX_CREDSPECS) {
  if (!Number.isInteger(maxCredSpecs) || maxCredSpecs < 1)
    throw new TypeError("maxCredSpecs must be a positive integer");
  const slots = Array.from({ length: maxCredSpecs }, (_, i) =>
    variable(
      `name${i}`,
      i === 0
        ? "size(variables.names) == 0 ? [] : [variables.names.min()]"
        : `variables.name${i - 1}.map(p, variables.names.filter(n, n > p)).filter(l, size(l) > 0).map(l, l.min())`,
    ),
  );
  const variables = [
    variable(
      "serviceAccount",
      "string(object.spec.?serviceAccountName.orValue('') == '' ? 'default' : object.spec.serviceAccountName)",
    ),
    variable(
      "reviewedContainers",
      `request.operation == 'CREATE'
  ? object.spec.?containers.orValue([]) + object.spec.?initContainers.orValue([]) + object.spec.?ephemeralContainers.orValue([])
  : request.?subResource.orValue('') == 'ephemeralcontainers'
    ? object.spec.?ephemeralContainers.orValue([]).filter(c,
        !oldObject.spec.?ephemeralContainers.orValue([]).exists(o, o.name == c.name))
    : []`,
    ),
    variable(
      "names",
      `((request.operation == 'CREATE'
    ? [${option("object.spec", "gmsaCredentialSpecName")}] +
      object.metadata.?annotations.orValue({}).filter(k,
        k == 'pod.alpha.windows.kubernetes.io/gmsa-credential-spec-name' ||
        k.endsWith('.container.alpha.windows.kubernetes.io/gmsa-credential-spec-name'))
      .map(k, optional.of(object.metadata.annotations[k]))
    : []) +
  variables.reviewedContainers.map(c, ${option("c", "gmsaCredentialSpecName")})
).filter(n, n.hasValue()).map(n, string(n.value()))`,
    ),
    ...slots,
    variable(
      "settings",
      `request.operation != 'UPDATE' ? [[], []] : [object, oldObject].map(o, (
${indent(settingsOf("o"), 2)}
).filter(s, size(s) > 1))`,
    ),
    variable(
      "changed",
      `variables.settings[0].filter(s, !(s in variables.settings[1]) &&
    !variables.reviewedContainers.exists(c, s.place == 'ephemeral container "' + c.name + '"')) +
  variables.settings[1].filter(s, !(s in variables.settings[0]))`,
    ),
  ];
  commented(variables, {
    0: 'As the ServiceAccount admission plugin sets it: empty means "default".',
    1:
      "Containers whose names need `use`: all on CREATE, the ephemeral containers an UPDATE of\n" +
      "pods/ephemeralcontainers adds (checked like a create), none on other UPDATEs (which may change nothing).",
    2: "Every credspec name to check, repeats included: pod level and alpha annotations on CREATE, then the containers'.",
    3:
      `name0 .. name${maxCredSpecs - 1}: the distinct names in sorted order, each a list of one name or empty. CEL before\n` +
      "Kubernetes 1.32 cannot de-duplicate a list; taking the least name above the previous one can, in\n" +
      "linear cost per slot. One authorization check per validation: each costs 350,000 of the\n" +
      `1,000,000 an expression may spend, and ${maxCredSpecs} of them stay within the 10,000,000 of one review.`,
    [3 + maxCredSpecs]:
      "On UPDATE: [settings now, settings before], each place with a GMSA name, contents or annotation.",
    [4 + maxCredSpecs]:
      "Settings that appeared, changed or disappeared; ephemeral containers added through the subresource do not count.",
  });
  const checks = slots.map((_, i) => ({
    expression: `variables.name${i}.all(n, ${USE_CHECK})`,
    messageExpression: `'service account "' + variables.serviceAccount + '" may not use GMSACredentialSpec "' + variables.name${i}[0] + '"'`,
    reason: "Forbidden",
  }));
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicy",
    metadata: { name: POLICY_NAME },
    spec: commented(
      {
        failurePolicy: "Fail",
        matchConstraints: commented(
          { resourceRules: podRules(false), namespaceSelector: namespaceSelector() },
          {
            namespaceSelector:
              "The webhooks' exemption (infra/deploy/webhooks/): the same namespaces are judged by both.",
          },
        ),
        matchConditions: matchConditions(),
        variables,
        validations: [
          {
            expression: "size(variables.changed) == 0",
            messageExpression:
              "'GMSA settings cannot change on update: ' + variables.changed.map(s, s.place).join(', ')",
            reason: "Invalid",
          },
          {
            expression: `variables.name${maxCredSpecs - 1}.all(p, !variables.names.exists(n, n > p))`,
            message: `the pod names more than ${maxCredSpecs} distinct GMSACredentialSpecs, the most this policy checks`,
            reason: "Invalid",
          },
          ...checks,
        ],
      },
      {
        matchConditions:
          "The webhooks' expression (infra/deploy/webhooks/): pods without any GMSA setting cost nothing.",
      },
    ),
  } satisfies V1ValidatingAdmissionPolicy;
}

/** The binding: every namespace the policy matches, denying. */
export function buildPolicyBinding() {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicyBinding",
    metadata: { name: POLICY_NAME },
    spec: { policyName: POLICY_NAME, validationActions: ["Deny"] },
  } satisfies V1ValidatingAdmissionPolicyBinding;
}

/** The header of infra/deploy/policy/policy.yaml. */
export const POLICY_FILE_HEADER = `The GMSA rules CEL can judge, enforced by the API server itself with no webhook: every credspec a pod
names must be usable by its service account, and GMSA settings never change on update. What it cannot
do, and how to install it: README.md in this folder. It checks MAX_CREDSPECS_PER_POD (${DEFAULT_MAX_CREDSPECS}) distinct names.`;

/** The header of infra/deploy/policy/binding.yaml. */
export const BINDING_FILE_HEADER = `Binds the GMSA policy (policy.yaml) to every namespace the policy matches: all but the webhooks'
exempt namespaces (kube-system by default). Deny refuses what it judges; a rollout can start with [Warn, Audit]
(warnings to the client and audit annotations, nothing refused) and move to [Deny].`;
