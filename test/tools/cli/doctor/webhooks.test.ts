import { parseAllDocuments } from "yaml";
import { beforeAll, describe, expect, it } from "vitest";
import { preparedProgram } from "../../../support/prepared.ts";
import { CHART_DIR } from "../../../../infra/build/helm/chart-dir.ts";
import {
  checkWebhookConfigurations,
  EXPECTED_WEBHOOKS,
  exemptNamespaces,
  SHADOW_MODE_ANNOTATION,
  type FoundWebhook,
  type WebhookConfiguration,
} from "../../../../cli/doctor/webhooks.ts";
import { FUNCTION_NAMES } from "../../../../shared/config/index.ts";
import { run } from "../../support/run.ts";

/** A configuration as shipped, under `name`, with `change` applied to its webhook. */
function config(
  fn: "expand" | "authorize",
  name: string,
  change: Record<string, unknown> = {},
  annotations?: Record<string, string>,
): WebhookConfiguration {
  const webhook = {
    ...structuredClone(EXPECTED_WEBHOOKS[fn].webhook),
    clientConfig: { url: `https://f.example/${fn}` },
    ...change,
  };
  return { metadata: { name, ...(annotations ? { annotations } : {}) }, webhooks: [webhook] };
}

const shipped = () => ({
  mutating: [config("expand", "gmsa-webhooks-expand")],
  validating: [config("authorize", "gmsa-webhooks-authorize")],
});
const failed = (lists: ReturnType<typeof shipped>, isAks = false) =>
  checkWebhookConfigurations(lists, isAks).findings.filter((f) => f.status !== "pass");

describe("webhook configurations", () => {
  it("passes both as shipped, and finds them under the chart's names too", () => {
    expect(failed(shipped())).toEqual([]);
    const chart = {
      mutating: [config("expand", "my-release-gmsa-webhooks-expand")],
      validating: [config("authorize", "my-release-gmsa-webhooks-authorize")],
    };
    const result = checkWebhookConfigurations(chart, false);
    expect(result.findings.every((f) => f.status === "pass")).toBe(true);
    expect(result.found.map((f) => f.configName)).toEqual([
      "my-release-gmsa-webhooks-expand",
      "my-release-gmsa-webhooks-authorize",
    ]);
  });

  it.each([
    ["rules", { rules: [] }, "fail", /rules differ/],
    ["matchConditions", { matchConditions: [] }, "fail", /matchConditions differ/],
    ["failurePolicy", { failurePolicy: "Ignore" }, "warn", /failurePolicy is Ignore/],
    ["timeoutSeconds", { timeoutSeconds: 30 }, "warn", /timeoutSeconds is 30/],
    [
      "the self-service opt-out",
      {
        namespaceSelector: {
          matchExpressions: [{ key: "windows.k8s.io/disabled", operator: "NotIn", values: ["true"] }],
        },
      },
      "fail",
      /namespaceSelector honours windows\.k8s\.io\/disabled, which whoever creates a namespace can set/,
    ],
    [
      "the self-service opt-out as a label",
      { namespaceSelector: { matchLabels: { "windows.k8s.io/disabled": "false" } } },
      "fail",
      /namespaceSelector honours windows\.k8s\.io\/disabled/,
    ],
    [
      "a narrower selector",
      {
        namespaceSelector: {
          matchExpressions: [
            EXPECTED_WEBHOOKS.expand.webhook.namespaceSelector.matchExpressions[0],
            { key: "pilot", operator: "Exists" },
          ],
        },
      },
      "warn",
      /more than the exemption kubernetes\.io\/metadata\.name NotIn/,
    ],
    ["reinvocationPolicy", { reinvocationPolicy: "Never" }, "warn", /reinvocationPolicy is not IfNeeded/],
    [
      "admissionReviewVersions",
      { admissionReviewVersions: ["v2"] },
      "fail",
      /admissionReviewVersions names neither v1 nor v1beta1/,
    ],
    ["sideEffects", { sideEffects: "Unknown" }, "fail", /sideEffects is not None/],
    [
      "an objectSelector a pod label opts out of",
      { objectSelector: { matchExpressions: [{ key: "skip-gmsa", operator: "DoesNotExist" }] } },
      "fail",
      /objectSelector differs from the shipped one, which selects every pod: whoever creates a pod can label it out/,
    ],
    [
      "an objectSelector by label",
      { objectSelector: { matchLabels: { gmsa: "true" } } },
      "fail",
      /objectSelector differs/,
    ],
  ])("reports %s that differs from what we ship", (_what, change, status, message) => {
    const lists = { ...shipped(), mutating: [config("expand", "gmsa-webhooks-expand", change)] };
    const [only, ...rest] = failed(lists);
    expect(rest).toEqual([]);
    expect([only?.check, only?.status]).toEqual(["webhooks/expand", status]);
    expect(only?.message).toMatch(message);
  });

  it("fails authorize's failurePolicy Ignore in enforce mode, with a fix that works on Helm 4 after a kubectl patch", () => {
    const lists = {
      ...shipped(),
      validating: [config("authorize", "gmsa-webhooks-authorize", { failurePolicy: "Ignore" })],
    };
    const [only, ...rest] = failed(lists);
    expect(rest).toEqual([]);
    expect([only?.check, only?.status]).toEqual(["webhooks/authorize", "fail"]);
    expect(only?.message).toMatch(
      /failurePolicy is Ignore, not Fail: GMSA pods are admitted unchecked while authorize is down/,
    );
    // Helm 4 applies server-side: the field kubectl patch changed is another manager's until forced.
    expect(only?.fix).toContain("helm upgrade --force-conflicts");
  });

  it("passes the operator's own exempt list, or none, and names the namespaces it exempts", () => {
    const exempt = (values: string[]) => ({
      namespaceSelector: { matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "NotIn", values }] },
    });
    const lists = {
      mutating: [config("expand", "e", exempt(["kube-system", "legacy"]))],
      validating: [config("authorize", "a", { namespaceSelector: {} })],
    };
    const result = checkWebhookConfigurations(lists, false);
    expect(result.findings.filter((f) => f.status !== "pass")).toEqual([]);
    expect([...exemptNamespaces(result.found)]).toEqual(["kube-system", "legacy"]);
  });

  it("fails authorize's objectSelector too, and passes the empty one the API server lists for an absent selector", () => {
    const skip = { objectSelector: { matchExpressions: [{ key: "skip-gmsa", operator: "DoesNotExist" }] } };
    const [only, ...rest] = failed({ ...shipped(), validating: [config("authorize", "a", skip)] });
    expect(rest).toEqual([]);
    expect([only?.check, only?.status]).toEqual(["webhooks/authorize", "fail"]);
    // Applying the shipped file again would keep a field it does not set: the fix removes it.
    expect(only?.fix).toBe(
      `remove it: kubectl patch validatingwebhookconfiguration a --type json -p '[{"op":"remove","path":"/webhooks/0/objectSelector"}]'`,
    );
    const defaulted = {
      mutating: [config("expand", "e", { objectSelector: {} })],
      validating: [config("authorize", "a", { objectSelector: { matchLabels: {}, matchExpressions: [] } })],
    };
    const result = checkWebhookConfigurations(defaulted, false);
    expect(result.findings.filter((f) => f.status !== "pass")).toEqual([]);
    expect(result.findings[0]?.message).toMatch(/namespaceSelector and objectSelector as shipped$/);
  });

  it("ignores white space changes in the CEL expression (re-indented by YAML tools)", () => {
    const expression = EXPECTED_WEBHOOKS.expand.webhook.matchConditions[0]!.expression.replace(/\n\s*/g, " ");
    const lists = {
      ...shipped(),
      mutating: [
        config("expand", "gmsa-webhooks-expand", { matchConditions: [{ name: "has-gmsa-reference", expression }] }),
      ],
    };
    expect(failed(lists)).toEqual([]);
  });

  it("passes authorize's failurePolicy Ignore in shadow mode, naming the mode, and warns of Fail there", () => {
    const lists = (failurePolicy: string) => ({
      ...shipped(),
      validating: [config("authorize", "a", { failurePolicy }, { [SHADOW_MODE_ANNOTATION]: "warn" })],
    });
    const result = checkWebhookConfigurations(lists("Ignore"), false);
    expect(result.findings.filter((f) => f.status !== "pass")).toEqual([]);
    expect(result.findings.find((f) => f.check === "webhooks/authorize")?.message).toMatch(
      /as shipped for shadow mode \(ENFORCEMENT=warn: failurePolicy Ignore/,
    );
    const [blocking, ...rest] = failed(lists("Fail"));
    expect(rest).toEqual([]);
    expect([blocking?.check, blocking?.status]).toEqual(["webhooks/authorize", "warn"]);
    expect(blocking?.message).toMatch(/failurePolicy is Fail in shadow mode/);
    // Only authorize has a shadow mode: the annotation on expand changes nothing.
    const expand = {
      ...shipped(),
      mutating: [config("expand", "e", { failurePolicy: "Ignore" }, { [SHADOW_MODE_ANNOTATION]: "warn" })],
    };
    expect(failed(expand).map((f) => f.message)).toEqual([expect.stringMatching(/failurePolicy is Ignore, not Fail/)]);
  });

  it("warns on AKS about a configuration without the Admissions Enforcer opt-out, only there", () => {
    const [expand, authorize, ...rest] = failed(shipped(), true);
    expect(rest).toEqual([]);
    expect(expand?.message).toMatch(
      /MutatingWebhookConfiguration gmsa-webhooks-expand lacks admissions\.enforcer\/disabled/,
    );
    expect(authorize?.message).toMatch(/ValidatingWebhookConfiguration gmsa-webhooks-authorize lacks/);
    const annotated = {
      mutating: [config("expand", "e", {}, { "admissions.enforcer/disabled": "true" })],
      validating: [config("authorize", "a", {}, { "admissions.enforcer/disabled": "true" })],
    };
    expect(failed(annotated, true)).toEqual([]);
  });
});

const withoutClientConfig = ({ clientConfig: _clientConfig, ...rest }: FoundWebhook["webhook"]) => rest;

type Rendered = WebhookConfiguration & { kind: string };

/** The webhook configurations `helm template` renders from the chart with its default values and `extra`. */
async function rendered(extra: string[] = []): Promise<Rendered[]> {
  const values = [
    ...["--set", "callerAuth.expand=t", "--set", "callerAuth.authorize=t"],
    ...["--set-json", 'networkPolicy.controlPlaneCIDRs=["10.0.0.0/8"]'],
    ...["--set", "image.repository=registry.invalid/gmsa-webhooks", ...extra],
  ];
  const { stdout } = await run(
    preparedProgram("helm"),
    ["template", "gmsa-webhooks", CHART_DIR, "-n", "gmsa-webhooks", ...values],
    { maxBuffer: 16 * 1024 * 1024 },
  );
  return parseAllDocuments(stdout)
    .map((d) => d.toJS() as Rendered)
    .filter((o) => o?.kind?.endsWith("WebhookConfiguration"));
}

// What the doctor expects is what we ship: the objects infra/deploy/webhooks/*.yaml and the chart's files/ are generated
// from (test/unit/infra/manifests.test.ts keeps those current), and here the webhooks `helm template` renders from
// the chart with its default values.
describe("the doctor's expected webhook configurations", () => {
  describe("equal helm template's output", () => {
    let defaults: Rendered[];
    beforeAll(async () => {
      defaults = await rendered();
    });

    it.each(FUNCTION_NAMES)("for %s, under the URL install's name", (fn) => {
      const config = defaults.find((o) => o.kind === EXPECTED_WEBHOOKS[fn].kind);
      expect(config?.metadata.name).toBe(EXPECTED_WEBHOOKS[fn].configName);
      expect(config?.webhooks?.map(withoutClientConfig)).toEqual([EXPECTED_WEBHOOKS[fn].webhook]);
    });

    it("with authorize.env.ENFORCEMENT=warn: authorize fails open, annotated, and the doctor passes it as shadow mode", async () => {
      const configs = await rendered(["--set", "authorize.env.ENFORCEMENT=warn"]);
      const lists = {
        mutating: configs.filter((c) => c.kind.startsWith("Mutating")),
        validating: configs.filter((c) => c.kind.startsWith("Validating")),
      };
      expect(lists.validating[0]?.metadata.annotations?.[SHADOW_MODE_ANNOTATION]).toBe("warn");
      expect(lists.mutating[0]?.metadata.annotations?.[SHADOW_MODE_ANNOTATION]).toBeUndefined();
      expect(lists.validating[0]?.webhooks?.map((w) => w.failurePolicy)).toEqual(["Ignore"]);
      expect(lists.mutating[0]?.webhooks?.map((w) => w.failurePolicy)).toEqual(["Fail"]);
      const findings = checkWebhookConfigurations(lists, false).findings;
      expect(findings.filter((f) => f.status !== "pass")).toEqual([]);
      expect(findings.map((f) => f.message).join("\n")).toContain("shadow mode");
    });
  });
});
