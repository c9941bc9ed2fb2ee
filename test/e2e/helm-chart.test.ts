/**
 * The Helm chart infra/deploy/helm/gmsa-webhooks rendered by the helm the project builds (`helm lint`, `helm template`,
 * `lookup` through `--dry-run=server`), its objects dry-run by the local API server. `helm install` into the cluster:
 * helm-in-cluster.test.ts (the certificate kept on upgrade), incumbent-crd.test.ts (credspecs the release does not own).
 */
import { X509Certificate } from "node:crypto";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { CHART_DIR } from "../../infra/build/helm/chart-dir.ts";
import { adminEndpoint, applyBaseInfra, kubeRequest, kubeRequestOk, type KubeObject } from "../../infra/local/index.ts";
import { POD_CIDR } from "../../infra/local/node-config.ts";
import { NODE_SERVER_OPTIONS } from "../../infra/build/node/heap-limits.ts";
import { createHelmRunner, inClusterTestValues, setHelmOwner, type HelmRunner } from "./support/helm.ts";
import { CRD_PATH } from "./support/install-checks.ts";
import { sa, useCredSpecs } from "../support/rbac.ts";
import {
  dryRunApply as dryRunApplyAs,
  find,
  kustomize as kustomizeDir,
  ofKind,
  webhookOf as webhookIn,
  WEBHOOK_KIND,
  withoutClientConfig,
  type Fn,
} from "./support/manifests.ts";
import { READINESS_TIMEOUT_MS } from "../../shared/kube/readiness.ts";

const cluster = inject("cluster");
const admin = adminEndpoint(cluster);
const NAMESPACE = "gmsa-helm-chart-test";
const RELEASE = "gw";
const FULLNAME = "gw-gmsa-webhooks";
const FUNCTIONS: Fn[] = ["expand", "authorize"];
const WORKLOAD_KINDS = ["Deployment", "Service", "ServiceAccount", "PodDisruptionBudget", "Secret", "ConfigMap"];
const PATH_SECRET = { expand: "e".repeat(48), authorize: "a".repeat(48) };
const CA_BUNDLE = Buffer.from(cluster.caPem).toString("base64");

interface NetworkPolicySpec {
  podSelector: { matchLabels: Record<string, string> };
  policyTypes: string[];
  ingress: unknown[];
}
interface PodSpec {
  serviceAccountName: string;
  nodeSelector: Record<string, string>;
  affinity: unknown;
  securityContext: Record<string, unknown>;
  containers: {
    image: string;
    command: string[];
    env: { name: string; value?: string; valueFrom?: unknown }[];
    securityContext: Record<string, unknown>;
    resources: unknown;
    readinessProbe: { httpGet: { path: string }; timeoutSeconds?: number };
    livenessProbe: { httpGet: { path: string } };
  }[];
  volumes: { name: string; secret?: { secretName: string } }[];
}

const IN_CLUSTER = inClusterTestValues("t".repeat(32));
const { networkPolicy: _networkPolicy, ...IN_CLUSTER_WITHOUT_CIDRS } = IN_CLUSTER;
const PROMETHEUS_PEER = { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "monitoring" } } };
const HTTPS_PORT = [{ protocol: "TCP", port: 8443 }];
const KONNECTIVITY = { podSelector: { matchLabels: { "k8s-app": "konnectivity-agent" } }, namespaceSelector: {} };
const VALUE_SETS: Record<string, Record<string, unknown>> = {
  "inCluster, generated certificates, bearer": IN_CLUSTER,
  "inCluster, cert-manager, mtls": {
    ...IN_CLUSTER,
    callerAuth: { mode: "mtls", mtls: { clientCA: cluster.caPem, clientNames: "kube-apiserver" } },
    certificates: { certManager: { enabled: true } },
    metrics: { serviceMonitor: { enabled: true, tokenSecret: { name: "scrape", key: "token" } } },
  },
  "inCluster, your Secret, path": {
    ...IN_CLUSTER,
    callerAuth: { mode: "path", ...PATH_SECRET },
    certificates: { secretName: "my-tls", caBundle: CA_BUNDLE },
    metrics: { serviceMonitor: { enabled: true }, prometheusRule: { enabled: true } },
    networkPolicy: { controlPlaneCIDRs: ["10.0.0.0/28", "fd00:10::/64"], metricsFrom: [PROMETHEUS_PEER] },
  },
  "inCluster, jwt": {
    ...IN_CLUSTER,
    viewerRole: true,
    env: { LOG_LEVEL: "debug" },
    authorize: { env: { ENFORCEMENT: "warn" } },
    callerAuth: {
      mode: "jwt",
      jwt: {
        issuer: "https://callers.example.com",
        audience: "gmsa-webhooks",
        jwksUrl: "https://callers.example.com/jwks",
      },
    },
  },
  "external, path": {
    mode: "external",
    callerAuth: { mode: "path", ...PATH_SECRET },
    external: {
      expand: {
        url: "https://gmsa-expand.example.com",
        subjects: [{ kind: "Group", name: "gmsa-webhooks:expand", apiGroup: "rbac.authorization.k8s.io" }],
      },
      authorize: {
        url: "https://gmsa-authorize.example.com",
        subjects: [{ kind: "Group", name: "gmsa-webhooks:authorize", apiGroup: "rbac.authorization.k8s.io" }],
      },
    },
    metrics: { prometheusRule: { enabled: true } },
  },
  "external, bearer, private CA": {
    mode: "external",
    external: {
      caBundle: CA_BUNDLE,
      expand: { url: "https://10.0.0.5:8443" },
      authorize: { url: "https://10.0.0.5:8443" },
    },
    policy: { install: true },
  },
};

let helm: HelmRunner;
const rendered = new Map<string, KubeObject[]>();

const webhookOf = (objects: KubeObject[], fn: Fn) => webhookIn(objects, fn, FULLNAME);
const deploymentOf = (objects: KubeObject[], fn: Fn) =>
  find(objects, "Deployment", `${FULLNAME}-${fn}`).spec as {
    replicas: number;
    template: { metadata: { labels: Record<string, string>; annotations?: Record<string, string> }; spec: PodSpec };
  };
const podOf = (objects: KubeObject[], fn: Fn) => deploymentOf(objects, fn).template.spec;
const kustomize = (path: string) => kustomizeDir(fileURLToPath(new URL(`../../infra/deploy/${path}`, import.meta.url)));
const dryRunApply = (objects: KubeObject[]) => dryRunApplyAs(admin, objects);
const template = (values: unknown, extraArgs?: string[]) => helm.template(RELEASE, NAMESPACE, values, extraArgs);

/** helm template with these values must fail; returns helm's message. */
async function refusal(values: unknown): Promise<string> {
  const result = await helm.run(["template", RELEASE, CHART_DIR, "-n", NAMESPACE], { values });
  expect(result.code).not.toBe(0);
  return result.stderr;
}

/** The NOTES of `helm install --dry-run=client` with these values (client-side: no cluster, so no lookup). */
async function installNotes(values: unknown): Promise<string> {
  const result = await helm.run(["install", RELEASE, CHART_DIR, "-n", NAMESPACE, "--dry-run=client", "--hide-secret"], {
    values,
  });
  expect(result.code, result.stderr).toBe(0);
  return result.stdout.slice(result.stdout.indexOf("\nNOTES:\n"));
}

beforeAll(async () => {
  helm = await createHelmRunner(inject("helm"));
  for (const [name, values] of Object.entries(VALUE_SETS)) rendered.set(name, await template(values));
  await kubeRequestOk(admin, "/api/v1/namespaces", { method: "POST", body: { metadata: { name: NAMESPACE } } });
  // The CRD, for the dry-run of credspecs (applied as every e2e file does; nothing else of it matters here).
  await applyBaseInfra(cluster);
});

afterAll(async () => {
  await kubeRequest(admin, `/api/v1/namespaces/${NAMESPACE}`, { method: "DELETE" });
  await helm?.close();
});

describe("helm lint", () => {
  it.each(Object.keys(VALUE_SETS))("passes with --strict: %s", async (name) => {
    const result = await helm.run(["lint", CHART_DIR, "--strict", "-n", NAMESPACE], { values: VALUE_SETS[name] });
    expect(result.stderr + result.stdout).toContain("0 chart(s) failed");
    expect(result.code).toBe(0);
  });
});

describe("helm template: inCluster mode", () => {
  const objects = () => rendered.get("inCluster, generated certificates, bearer")!;

  it("registers each function by service reference on its own Service, with the generated CA as caBundle", () => {
    const secret = find(objects(), "Secret", `${FULLNAME}-tls`) as KubeObject & { data: Record<string, string> };
    for (const fn of FUNCTIONS) {
      const { clientConfig } = webhookOf(objects(), fn);
      expect(clientConfig.url).toBeUndefined();
      expect(clientConfig.service).toEqual({
        namespace: NAMESPACE,
        name: `${FULLNAME}-${fn}`,
        port: 8443,
        path: `/${fn}`,
      });
      expect(clientConfig.caBundle).toBe(secret.data["ca.crt"]);
      find(objects(), "Service", `${FULLNAME}-${fn}`);
    }
  });

  it("generates a serving certificate signed by that CA for both Services' names", () => {
    const secret = find(objects(), "Secret", `${FULLNAME}-tls`) as KubeObject & { data: Record<string, string> };
    const ca = new X509Certificate(Buffer.from(secret.data["ca.crt"]!, "base64"));
    const leaf = new X509Certificate(Buffer.from(secret.data["tls.crt"]!, "base64"));
    expect(leaf.verify(ca.publicKey)).toBe(true);
    for (const fn of FUNCTIONS) expect(leaf.checkHost(`${FULLNAME}-${fn}.${NAMESPACE}.svc`)).toBeDefined();
    expect((secret.metadata["annotations"] as Record<string, string>)["helm.sh/resource-policy"]).toBe("keep");
  });

  it("runs each function with its own service account, safe defaults and the caller-auth Secret", () => {
    for (const fn of FUNCTIONS) {
      const pod = podOf(objects(), fn);
      const [container] = pod.containers;
      expect(pod.serviceAccountName).toBe(`${FULLNAME}-${fn}`);
      expect(pod.nodeSelector).toEqual({ "kubernetes.io/os": "linux" });
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } });
      expect(pod.affinity).toMatchObject({
        podAntiAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            { podAffinityTerm: { topologyKey: "kubernetes.io/hostname" } },
          ],
        },
      });
      expect(container!.securityContext).toEqual({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ["ALL"] },
      });
      expect(container!.resources).toEqual({ requests: { cpu: "50m", memory: "64Mi" }, limits: { memory: "128Mi" } });
      expect(container!.livenessProbe.httpGet.path).toBe("/healthz");
      expect(container!.readinessProbe.httpGet.path).toBe("/readyz");
      // Above the readiness check's own limit, so the probe reads its 503 and reason rather than timing out.
      expect(container!.readinessProbe.timeoutSeconds! * 1000).toBeGreaterThan(READINESS_TIMEOUT_MS);
      const env = Object.fromEntries(container!.env.map((e) => [e.name, e.value ?? e.valueFrom]));
      expect(env).toMatchObject({ FUNCTIONS: fn, CALLER_AUTH: "bearer" });
      // The image's command with its production heap limits, so the chart's default cannot drift from the image's.
      expect(container!.command).toEqual(["node", ...NODE_SERVER_OPTIONS.split(" "), "dist/node/server.mjs"]);
      expect(env["CALLER_AUTH_TOKENS"]).toEqual({ secretKeyRef: { name: `${FULLNAME}-caller-auth`, key: fn } });
      expect(pod.volumes).toContainEqual({ name: "tls", secret: { secretName: `${FULLNAME}-tls` } });
      expect(deploymentOf(objects(), fn).replicas).toBe(2);
      expect(find(objects(), "PodDisruptionBudget", `${FULLNAME}-${fn}`).spec).toMatchObject({ minAvailable: 1 });
    }
  });

  it("says in its notes that helm uninstall keeps the generated certificate's Secret, with the command that deletes it", async () => {
    const deleteCommand = `kubectl -n ${NAMESPACE} delete secret ${FULLNAME}-tls`;
    expect(await installNotes(IN_CLUSTER)).toMatch(new RegExp(`helm uninstall keeps it[^]*\n  ${deleteCommand}$`, "m"));
    // cert-manager writes its own Secret: the chart generates nothing to keep.
    expect(await installNotes({ ...IN_CLUSTER, certificates: { certManager: { enabled: true } } })).not.toContain(
      "delete secret",
    );
  });

  it("with cert-manager: a Certificate for the Services, inject-ca-from on both webhooks, no caBundle, no generated Secret", () => {
    const objects = rendered.get("inCluster, cert-manager, mtls")!;
    const serving = find(objects, "Certificate", `${FULLNAME}-serving`) as KubeObject & {
      spec: { secretName: string; dnsNames: string[] };
    };
    expect(serving.spec.dnsNames).toContain(`${FULLNAME}-authorize.${NAMESPACE}.svc`);
    expect(podOf(objects, "expand").volumes).toContainEqual({
      name: "tls",
      secret: { secretName: serving.spec.secretName },
    });
    // Its inject-ca-from annotation: the AKS test below.
    for (const fn of FUNCTIONS) expect(webhookOf(objects, fn).clientConfig.caBundle).toBeUndefined();
    expect(ofKind(objects, "Secret")).toEqual([]);
    expect(ofKind(objects, "ServiceMonitor")).toHaveLength(2);
    // The scrape token, apart from the admission credential: the functions read it as METRICS_TOKENS.
    for (const fn of FUNCTIONS) {
      const monitor = find(objects, "ServiceMonitor", `${FULLNAME}-${fn}`) as KubeObject & {
        spec: { endpoints: { path: string; authorization?: unknown }[] };
      };
      expect(monitor.spec.endpoints[0]).toMatchObject({
        path: "/metrics",
        authorization: { type: "Bearer", credentials: { name: "scrape", key: "token" } },
      });
      expect(podOf(objects, fn).containers[0]!.env).toContainEqual({
        name: "METRICS_TOKENS",
        valueFrom: { secretKeyRef: { name: "scrape", key: "token" } },
      });
    }
  });

  it("annotates both webhook configurations for AKS's Admissions Enforcer unless opted out, beside cert-manager's annotation", async () => {
    const enforcer = { "admissions.enforcer/disabled": "true" };
    const cases: [string, KubeObject[], unknown][] = [
      ["default", objects(), enforcer],
      ["external", rendered.get("external, path")!, enforcer],
      [
        "cert-manager",
        rendered.get("inCluster, cert-manager, mtls")!,
        { "cert-manager.io/inject-ca-from": `${NAMESPACE}/${FULLNAME}-serving`, ...enforcer },
      ],
      [
        "webhooks.aksAdmissionsEnforcerOptOut false",
        await template({ ...IN_CLUSTER, webhooks: { aksAdmissionsEnforcerOptOut: false } }),
        undefined,
      ],
    ];
    for (const [name, objects, annotations] of cases) {
      for (const fn of FUNCTIONS) {
        const { metadata } = find(objects, WEBHOOK_KIND[fn], `${FULLNAME}-${fn}`);
        expect(metadata["annotations"], `${name}: ${fn}`).toEqual(annotations);
      }
    }
  });

  it("rolls a function's pods when its caller credential in the chart's Secret changes, and only that function's", async () => {
    const annotation = (objects: KubeObject[], fn: Fn) =>
      deploymentOf(objects, fn).template.metadata.annotations?.["checksum/caller-auth"];
    const before = rendered.get("inCluster, generated certificates, bearer")!;
    const rotated = await template({
      ...IN_CLUSTER,
      callerAuth: { mode: "bearer", expand: "t".repeat(32), authorize: `${"t".repeat(32)},${"n".repeat(32)}` },
    });
    expect(annotation(before, "expand")).toMatch(/^[0-9a-f]{64}$/);
    expect(annotation(rotated, "expand")).toBe(annotation(before, "expand"));
    expect(annotation(rotated, "authorize")).not.toBe(annotation(before, "authorize"));
    // The hash is one-way: the token itself is nowhere in the Deployment.
    expect(JSON.stringify(find(rotated, "Deployment", `${FULLNAME}-authorize`))).not.toContain("n".repeat(32));
    // Your own Secret: the chart cannot see it change, so it adds nothing (docs say to restart the rollout).
    const yours = await template({ ...IN_CLUSTER, callerAuth: { mode: "bearer", existingSecret: "mine" } });
    for (const fn of FUNCTIONS) expect(annotation(yours, fn)).toBeUndefined();
  });

  it("with your Secret: its name mounted and your caBundle; path secrets in the service path and the scrape path", () => {
    const objects = rendered.get("inCluster, your Secret, path")!;
    for (const fn of FUNCTIONS) {
      expect(webhookOf(objects, fn).clientConfig).toMatchObject({
        caBundle: CA_BUNDLE,
        service: { path: `/${fn}/${PATH_SECRET[fn]}` },
      });
      expect(podOf(objects, fn).volumes).toContainEqual({ name: "tls", secret: { secretName: "my-tls" } });
      const monitor = find(objects, "ServiceMonitor", `${FULLNAME}-${fn}`) as KubeObject & {
        spec: { endpoints: { path: string }[] };
      };
      // Never the admission secret: whoever reads the ServiceMonitor could send reviews.
      expect(monitor.spec.endpoints[0]).toEqual(expect.objectContaining({ path: "/metrics" }));
      expect(monitor.spec.endpoints[0]).not.toHaveProperty("authorization");
    }
    expect(ofKind(objects, "Secret").map((s) => s.metadata.name)).toEqual([`${FULLNAME}-caller-auth`]);
  });

  it.each([
    [
      "only from controlPlaneCIDRs, by default",
      { networkPolicy: { controlPlaneCIDRs: [POD_CIDR] } },
      [{ from: [{ ipBlock: { cidr: POD_CIDR } }], ports: HTTPS_PORT }],
    ],
    [
      "the metricsFrom peers in a rule of their own",
      { networkPolicy: { controlPlaneCIDRs: ["10.0.0.0/28", "fd00:10::/64"], metricsFrom: [PROMETHEUS_PEER] } },
      [
        { from: [{ ipBlock: { cidr: "10.0.0.0/28" } }, { ipBlock: { cidr: "fd00:10::/64" } }], ports: HTTPS_PORT },
        { from: [PROMETHEUS_PEER], ports: HTTPS_PORT },
      ],
    ],
    [
      "both controlPlaneCIDRs and controlPlaneFrom in one rule",
      { networkPolicy: { controlPlaneCIDRs: ["172.16.0.0/28"], controlPlaneFrom: [KONNECTIVITY] } },
      [{ from: [{ ipBlock: { cidr: "172.16.0.0/28" } }, KONNECTIVITY], ports: HTTPS_PORT }],
    ],
    // No CIDRs needed then.
    ["nobody, with networkPolicy.enabled false: no NetworkPolicy", { networkPolicy: { enabled: false } }, undefined],
  ])(
    "admits to the functions' port %s, in one NetworkPolicy selecting both functions' pods",
    async (_, values, ingress) => {
      const objects = await template({ ...IN_CLUSTER_WITHOUT_CIDRS, ...values });
      const policies = ofKind(objects, "NetworkPolicy") as (KubeObject & { spec: NetworkPolicySpec })[];
      expect(policies.map((p) => [p.metadata.name, p.spec.policyTypes, p.spec.ingress])).toEqual(
        ingress === undefined ? [] : [[FULLNAME, ["Ingress"], ingress]],
      );
      expect(ofKind(objects, "Deployment")).toHaveLength(2);
      for (const fn of FUNCTIONS)
        for (const { spec } of policies)
          expect(deploymentOf(objects, fn).template.metadata.labels).toMatchObject(spec.podSelector.matchLabels);
    },
  );

  it("sets env on both functions and a function's own env on it alone; adds the viewer role to view", () => {
    const objects = rendered.get("inCluster, jwt")!;
    const envOf = (fn: Fn) => Object.fromEntries(podOf(objects, fn).containers[0]!.env.map((e) => [e.name, e.value]));
    expect(envOf("authorize")).toMatchObject({
      LOG_LEVEL: "debug",
      ENFORCEMENT: "warn",
      CALLER_AUTH: "jwt",
      CALLER_AUTH_JWT_AUDIENCE: "gmsa-webhooks",
    });
    expect(envOf("expand")).toMatchObject({ LOG_LEVEL: "debug" });
    expect(envOf("expand")).not.toHaveProperty("ENFORCEMENT");
    const viewer = find(objects, "ClusterRole", `${FULLNAME}:view`);
    expect((viewer.metadata["labels"] as Record<string, string>)["rbac.authorization.k8s.io/aggregate-to-view"]).toBe(
      "true",
    );
  });

  it("creates credentialSpecs with use RBAC once the cluster serves the CRD, and refuses them before", async () => {
    const values = {
      ...IN_CLUSTER,
      credentialSpecs: [
        {
          name: "helm-webapp",
          credspec: { CmsPlugins: ["ActiveDirectory"] },
          serviceAccounts: [{ namespace: NAMESPACE, name: "web" }],
        },
      ],
    };
    const objects = await template(values, ["--api-versions", "windows.k8s.io/v1/GMSACredentialSpec"]);
    expect(find(objects, "GMSACredentialSpec", "helm-webapp")["credspec"]).toEqual({ CmsPlugins: ["ActiveDirectory"] });
    expect(find(objects, "ClusterRole", `${FULLNAME}:use:helm-webapp`).rules).toEqual(
      useCredSpecs("", ["helm-webapp"]).rules,
    );
    expect(find(objects, "RoleBinding", `${FULLNAME}:use:helm-webapp:web`).subjects).toEqual([sa("web", NAMESPACE)]);
    expect(await refusal(values)).toMatch(
      /credentialSpecs: the cluster does not serve windows\.k8s\.io\/v1 GMSACredentialSpec yet/,
    );
    await dryRunApply(objects.filter((o) => ["GMSACredentialSpec", "ClusterRole", "RoleBinding"].includes(o.kind)));
  });
});

describe("the AKS and EKS example values (infra/deploy/helm/examples)", () => {
  it.each([
    [
      "aks",
      "admits the konnectivity agents (controlPlaneFrom alone is enough)",
      [
        {
          namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "kube-system" } },
          podSelector: { matchLabels: { app: "konnectivity-agent" } },
        },
      ],
      "myregistry.azurecr.io/gmsa-webhooks:0.1.0",
    ],
    [
      "eks",
      "admits the cluster's subnets",
      [{ ipBlock: { cidr: "192.168.0.0/19" } }, { ipBlock: { cidr: "192.168.32.0/19" } }],
      "111122223333.dkr.ecr.us-east-1.amazonaws.com/gmsa-webhooks:0.1.0",
    ],
  ] as const)(
    "%s: %s, annotates both webhooks for AKS, calls them with the path secrets, and the API server accepts it all",
    async (name, _, from, image) => {
      const file = fileURLToPath(new URL(`../../infra/deploy/helm/examples/${name}.yaml`, import.meta.url));
      // With the path secrets the file's header says to pass with --set.
      const objects = await template({
        ...(parse(await readFile(file, "utf8")) as Record<string, unknown>),
        callerAuth: { mode: "path", ...PATH_SECRET },
      });
      expect((find(objects, "NetworkPolicy", FULLNAME).spec as NetworkPolicySpec).ingress).toEqual([
        { from, ports: HTTPS_PORT },
      ]);
      for (const fn of FUNCTIONS) {
        expect(find(objects, WEBHOOK_KIND[fn], `${FULLNAME}-${fn}`).metadata["annotations"]).toEqual({
          "admissions.enforcer/disabled": "true",
        });
        expect(webhookOf(objects, fn).clientConfig.service?.path).toBe(`/${fn}/${PATH_SECRET[fn]}`);
        expect(podOf(objects, fn).containers[0]!.image).toBe(image);
      }
      await dryRunApply(objects.filter((o) => o.kind !== "CustomResourceDefinition"));
    },
  );
});

describe("helm template: external mode", () => {
  it("renders no workload, and the webhooks by URL with the path secret", () => {
    const objects = rendered.get("external, path")!;
    expect(objects.filter((o) => WORKLOAD_KINDS.includes(o.kind))).toEqual([]);
    // networkPolicy.enabled is true by default and no CIDRs are set: external mode has no pods to isolate.
    expect(ofKind(objects, "NetworkPolicy")).toEqual([]);
    expect(webhookOf(objects, "expand").clientConfig).toEqual({
      url: `https://gmsa-expand.example.com/expand/${PATH_SECRET.expand}`,
    });
    expect(webhookOf(objects, "authorize").clientConfig).toEqual({
      url: `https://gmsa-authorize.example.com/authorize/${PATH_SECRET.authorize}`,
    });
    const binding = find(objects, "ClusterRoleBinding", `${FULLNAME}:authorize`) as KubeObject & {
      subjects: unknown[];
    };
    expect(binding.subjects).toEqual([
      { kind: "Group", name: "gmsa-webhooks:authorize", apiGroup: "rbac.authorization.k8s.io" },
    ]);
  });

  it("puts a private CA in caBundle and nothing in the URL for bearer", () => {
    const objects = rendered.get("external, bearer, private CA")!;
    expect(webhookOf(objects, "expand").clientConfig).toEqual({
      url: "https://10.0.0.5:8443/expand",
      caBundle: CA_BUNDLE,
    });
    expect(objects.filter((o) => WORKLOAD_KINDS.includes(o.kind))).toEqual([]);
  });
});

describe("helm template: the PrometheusRule", () => {
  interface Rule {
    alert: string;
    expr: string;
    labels: { severity: string };
  }
  const rulesOf = (objects: KubeObject[]) =>
    (find(objects, "PrometheusRule", FULLNAME).spec as { groups: { rules: Rule[] }[] }).groups.flatMap((g) => g.rules);

  it.each(["inCluster, your Secret, path", "external, path"])(
    "alerts with FailingClosed's severity when the API server cannot call either GMSA webhook (calling_webhook_error): %s",
    (name) => {
      const objects = rendered.get(name)!;
      const rules = rulesOf(objects);
      const alert = rules.find((rule) => rule.alert === "GmsaWebhooksCallsFailing");
      expect(alert?.labels.severity).toBe(
        rules.find((rule) => rule.alert === "GmsaWebhooksFailingClosed")?.labels.severity,
      );
      const selector = /\brate\(apiserver_admission_webhook_rejection_count\{([^}]*)\}\[5m\]\)/.exec(alert!.expr)?.[1];
      expect(selector, alert!.expr).toContain('error_type="calling_webhook_error"');
      // The name matcher's PromQL string (Go escapes, as JSON's for these) holds a regex PromQL anchors at both ends.
      const pattern = /(?:^|,)name=~("(?:[^"\\]|\\.)*")/.exec(selector!)?.[1];
      expect(pattern, selector).toBeDefined();
      const selects = new RegExp(`^(?:${JSON.parse(pattern!) as string})$`);
      for (const fn of FUNCTIONS) expect(selects.test(webhookOf(objects, fn).name as string), fn).toBe(true);
      // Dots are literal: no other webhook is counted.
      expect(selects.test("expand-gmsa-webhooks-windows-k8s-io")).toBe(false);
    },
  );
});

describe("one source with the kustomize bases", () => {
  it.each(Object.keys(VALUE_SETS))(
    "webhooks but clientConfig, ClusterRole rules and the CRD equal infra/'s: %s",
    async (name) => {
      const objects = rendered.get(name)!;
      const [webhooks, rbac, crd] = await Promise.all([kustomize("webhooks"), kustomize("rbac"), kustomize("crd")]);
      // Shadow mode (authorize's ENFORCEMENT=warn) registers authorize with failurePolicy Ignore; nothing else differs.
      const shadow =
        (VALUE_SETS[name] as { authorize?: { env?: { ENFORCEMENT?: string } } }).authorize?.env?.ENFORCEMENT === "warn";
      for (const fn of FUNCTIONS) {
        const base = withoutClientConfig(webhookIn(webhooks, fn));
        expect(withoutClientConfig(webhookOf(objects, fn))).toEqual(
          fn === "authorize" && shadow ? { ...base, failurePolicy: "Ignore" } : base,
        );
        expect(find(objects, "ClusterRole", `${FULLNAME}:${fn}`).rules).toEqual(
          find(rbac, "ClusterRole", `gmsa-webhooks:${fn}`).rules,
        );
      }
      const ours = find(objects, "CustomResourceDefinition", "gmsacredentialspecs.windows.k8s.io");
      const theirs = crd[0]!;
      expect(ours.spec).toEqual(theirs.spec);
      expect(ours.metadata["annotations"]).toEqual({
        ...(theirs.metadata["annotations"] as object),
        "helm.sh/resource-policy": "keep",
      });
    },
  );

  it("installs the ValidatingAdmissionPolicy and binding of infra/deploy/policy when policy.install is set", async () => {
    const policy = await kustomize("policy");
    const objects = rendered.get("external, bearer, private CA")!;
    for (const kind of ["ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"]) {
      expect(find(objects, kind, "gmsa-webhooks.windows.k8s.io").spec).toEqual(
        find(policy, kind, "gmsa-webhooks.windows.k8s.io").spec,
      );
    }
    expect(ofKind(rendered.get("external, path")!, "ValidatingAdmissionPolicy")).toEqual([]);
  });

  it("changes only what its values say: exempt namespaces, more namespace expressions, the release namespace, failurePolicy, timeout; no CRD with crd.install false", async () => {
    const objects = await template({
      ...IN_CLUSTER,
      crd: { install: false },
      policy: { install: true },
      webhooks: {
        exemptNamespaces: ["kube-system", "legacy"],
        excludeReleaseNamespace: true,
        failurePolicy: "Ignore",
        timeoutSeconds: 5,
        extraNamespaceSelectorExpressions: [{ key: "pilot", operator: "In", values: ["true"] }],
      },
    });
    const webhook = webhookOf(objects, "authorize");
    expect(webhook.namespaceSelector.matchExpressions).toEqual([
      { key: "kubernetes.io/metadata.name", operator: "NotIn", values: ["kube-system", "legacy"] },
      { key: "pilot", operator: "In", values: ["true"] },
      { key: "kubernetes.io/metadata.name", operator: "NotIn", values: [NAMESPACE] },
    ]);
    // The policy judges the same namespaces as the webhooks.
    const [policy] = ofKind(objects, "ValidatingAdmissionPolicy") as unknown as {
      spec: { matchConstraints: { namespaceSelector: unknown } };
    }[];
    expect(policy?.spec.matchConstraints.namespaceSelector).toEqual(webhook.namespaceSelector);
    // No exempt namespace: the expression goes (NotIn needs values), every namespace is enforced.
    const none = await template({ ...IN_CLUSTER, webhooks: { exemptNamespaces: [] } });
    expect(webhookOf(none, "expand").namespaceSelector).toEqual({});
    expect(webhook).toMatchObject({ failurePolicy: "Ignore", timeoutSeconds: 5 });
    expect(ofKind(objects, "CustomResourceDefinition")).toEqual([]);
  });
});

describe("values the chart refuses, with a message", () => {
  const cases: [string, unknown, RegExp][] = [
    [
      "no image in inCluster mode",
      { ...IN_CLUSTER, image: undefined },
      /image\.repository: the image built by npm run image/,
    ],
    [
      "no bearer tokens",
      { ...IN_CLUSTER, callerAuth: { mode: "bearer" } },
      /callerAuth\.expand: expand's bearer tokens is required/,
    ],
    [
      "no URL in external mode",
      { mode: "external", external: { expand: { url: "https://x.example.com" } } },
      /external\.authorize\.url: .* is required in external mode/,
    ],
    [
      "a URL with the function's path",
      {
        mode: "external",
        external: { expand: { url: "https://x.example.com/expand/" }, authorize: { url: "https://x.example.com" } },
      },
      /external\.expand\.url: .* must be an https URL/,
    ],
    [
      "cert-manager and a Secret",
      { ...IN_CLUSTER, certificates: { certManager: { enabled: true }, secretName: "x", caBundle: CA_BUNDLE } },
      /choose certManager\.enabled or secretName, not both/,
    ],
    [
      "a Secret without its CA",
      { ...IN_CLUSTER, certificates: { secretName: "x" } },
      /certificates\.caBundle: .* is required/,
    ],
    [
      "a short path secret",
      { ...IN_CLUSTER, callerAuth: { mode: "path", expand: "short", authorize: "short" } },
      /at least 32 characters/,
    ],
    [
      "jwt without a key set",
      { ...IN_CLUSTER, callerAuth: { mode: "jwt", jwt: { issuer: "https://i.example.com", audience: "a" } } },
      /set exactly one of jwks and jwksUrl/,
    ],
    [
      "inCluster mode without the control plane's CIDRs (the NetworkPolicy is on by default)",
      IN_CLUSTER_WITHOUT_CIDRS,
      /networkPolicy\.controlPlaneCIDRs: .*--set 'networkPolicy\.controlPlaneCIDRs=\{10\.0\.0\.0\/16\}'.* or set networkPolicy\.enabled=false/,
    ],
    [
      "a control-plane address without its prefix length (schema)",
      { ...IN_CLUSTER, networkPolicy: { controlPlaneCIDRs: ["10.0.0.1"] } },
      /at '\/networkPolicy\/controlPlaneCIDRs\/0': '10\.0\.0\.1' does not match pattern/,
    ],
    [
      "a variable the chart sets, in env",
      { ...IN_CLUSTER, authorize: { env: { CALLER_AUTH_TOKENS: "x" } } },
      /env: CALLER_AUTH_TOKENS is set by the chart/,
    ],
    ["both PDB bounds", { ...IN_CLUSTER, podDisruptionBudget: { minAvailable: 1, maxUnavailable: 1 } }, /not both/],
    [
      "one replica under the default PDB (minAvailable 1)",
      { ...IN_CLUSTER, replicaCount: 1 },
      /podDisruptionBudget: minAvailable 1 with replicaCount 1 lets no pod be evicted.* set replicaCount above 1, podDisruptionBudget\.maxUnavailable: 1, or podDisruptionBudget\.enabled: false/,
    ],
    [
      "a PDB with maxUnavailable 0",
      { ...IN_CLUSTER, podDisruptionBudget: { maxUnavailable: 0 } },
      /podDisruptionBudget: maxUnavailable 0 lets no pod be evicted/,
    ],
    [
      "a grace period that a review in flight can outlast",
      { ...IN_CLUSTER, webhooks: { timeoutSeconds: 25 }, env: { SHUTDOWN_DELAY_SECONDS: "1" } },
      /terminationGracePeriodSeconds: 30 is not above preStopSeconds \(5\) \+ SHUTDOWN_DELAY_SECONDS \(1\) \+ the webhooks' timeoutSeconds \(25\): .* set it to 32 or more/,
    ],
    [
      "an exempt namespace that is not a namespace name (schema)",
      { ...IN_CLUSTER, webhooks: { exemptNamespaces: ["Kube_System"] } },
      /at '\/webhooks\/exemptNamespaces\/0': 'Kube_System' does not match pattern/,
    ],
    [
      "an unknown mode (schema)",
      { ...IN_CLUSTER, mode: "serverless" },
      /at '\/mode': value must be one of 'inCluster', 'external'/,
    ],
    [
      "callerAuth none (schema)",
      { ...IN_CLUSTER, callerAuth: { mode: "none" } },
      /at '\/callerAuth\/mode': value must be one of 'bearer', 'jwt', 'path', 'mtls'/,
    ],
    [
      "a windows-gmsa value we do not have (schema)",
      { ...IN_CLUSTER, containerPort: "443" },
      /additional properties 'containerPort' not allowed/,
    ],
    [
      "windows-gmsa's certReload default, false (reloading is always on)",
      { ...IN_CLUSTER, certificates: { certReload: { enabled: false } } },
      /certificates\.certReload\.enabled: false is kubernetes-sigs\/windows-gmsa's value .* always reloads renewed certificate files.* Remove certificates\.certReload from your values/,
    ],
    ...["sigwindowstools/k8s-gmsa-webhook", "registry.k8s.io/gmsa-webhook/k8s-gmsa-webhook"].map(
      (repository): [string, unknown, RegExp] => [
        `windows-gmsa's image ${repository}`,
        { ...IN_CLUSTER, image: { repository, tag: "v0.12.1" } },
        new RegExp(
          `image\\.repository: ${repository.replaceAll(".", "\\.")} is kubernetes-sigs/windows-gmsa's webhook image .* crash-loop; set image\\.repository to this chart's gmsa-webhooks image`,
        ),
      ],
    ),
  ];
  it.each(cases)("%s", async (_name, values, message) => {
    expect(await refusal(values)).toMatch(message);
  });

  it("keeps an explicit minAvailable 0, so that a single replica can be evicted", async () => {
    const objects = await template({ ...IN_CLUSTER, replicaCount: 1, podDisruptionBudget: { minAvailable: 0 } });
    for (const fn of FUNCTIONS)
      expect(find(objects, "PodDisruptionBudget", `${FULLNAME}-${fn}`).spec).toMatchObject({ minAvailable: 0 });
  });

  it("accepts what windows-gmsa's values can mean here: certReload.enabled true, an image whose name only resembles windows-gmsa's", async () => {
    const objects = await template({
      ...IN_CLUSTER,
      certificates: { certReload: { enabled: true } },
      image: { repository: "registry.example.com/k8s-gmsa-webhooks" },
    });
    expect(podOf(objects, "expand").containers[0]!.image).toMatch(/^registry\.example\.com\/k8s-gmsa-webhooks:/);
  });
});

describe("against the local API server", () => {
  it("leaves out a CRD it does not own, and renders it once the CRD names this release", async () => {
    const serverSide = ["--dry-run=server", "--kubeconfig", cluster.adminKubeconfig];
    // External mode: no generated certificate's Secret to look up, only the CRD.
    const EXTERNAL = { ...VALUE_SETS["external, path"], metrics: {} };
    // applyBaseInfra put the CRD there as kubectl would: no release owns it, so a Helm install over it would fail.
    const crds = async () => ofKind(await template(EXTERNAL, serverSide), "CustomResourceDefinition");
    expect(await crds()).toEqual([]);
    // Without the cluster, lookup sees nothing and the CRD is rendered (the other tests here).
    try {
      await setHelmOwner(admin, CRD_PATH, "another-release", NAMESPACE);
      expect(await crds()).toEqual([]);
      await setHelmOwner(admin, CRD_PATH, RELEASE, NAMESPACE);
      expect(await crds()).toHaveLength(1);
    } finally {
      await setHelmOwner(admin, CRD_PATH, null, null);
    }
  });

  it.each(Object.keys(VALUE_SETS))("accepts every object in a server-side dry-run: %s", async (name) => {
    // cert-manager's and the Prometheus operator's kinds need their CRDs, which the local cluster has not.
    await dryRunApply(
      rendered.get(name)!.filter((o) => !/cert-manager\.io|monitoring\.coreos\.com/.test(o.apiVersion)),
    );
  });
});
