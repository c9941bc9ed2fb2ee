/**
 * The kustomize bases and overlays of infra/deploy/ (and node/in-cluster.yaml, applied after node-in-cluster) rendered
 * by `kubectl kustomize` and dry-run by the real API server, which validates every object (CRD schema, webhook URLs and
 * CEL, RBAC). A copy of infra/ is rendered with test path secrets: a developer's own path-secrets.env is never read.
 * Dry-run stores nothing: only the copy is removed afterwards.
 */
import { randomBytes } from "node:crypto";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { adminEndpoint, applyBaseInfra, loadManifest, type KubeObject } from "../../infra/local/index.ts";
import { FUNCTION_NAMES } from "../../shared/config/index.ts";
import { kubectl } from "./support/kubectl.ts";
import {
  dryRunApply as dryRunApplyAs,
  find,
  kustomize as kustomizeDir,
  ofKind,
  webhookOf,
  WEBHOOK_KIND,
  withoutClientConfig,
  type Fn,
} from "./support/manifests.ts";

const cluster = inject("cluster");
const admin = adminEndpoint(cluster);
const INFRA = fileURLToPath(new URL("../../infra/deploy/", import.meta.url));
const BASES = ["crd", "rbac", "webhooks", "samples", "policy"];
/** An overlay of infra/deploy/overlays/ as they stand with the optional ValidatingAdmissionPolicy added (infra/deploy/policy/README.md). */
const WITH_POLICY = "overlays/with-policy";
/** An overlay plus components/shadow-mode, as infra/deploy/overlays/README.md says to run authorize with ENFORCEMENT=warn. */
const WITH_SHADOW_MODE = "overlays/with-shadow-mode";
/** An overlay with the policy plus components/exempt-namespaces, its lists edited as the component's comment says. */
const WITH_EXEMPT = "overlays/with-exempt-namespaces";

/** What each overlay promises (`host`: the target's host shape, any for custom domains; `aks`: its cluster is AKS); a folder of
 * infra/deploy/overlays/ missing here fails "covers every overlay folder". */
const OVERLAYS = [
  {
    name: "node-in-cluster",
    subjectKind: "ServiceAccount",
    caBundle: true,
    pathSecrets: false,
    host: /^[a-z0-9-]+\.[a-z0-9-]+\.svc(:\d+)?$/,
    aks: false,
  },
  { name: "cloudflare-bearer", subjectKind: "User", caBundle: false, pathSecrets: false, host: /./, aks: false },
  { name: "cloudflare-path", subjectKind: "User", caBundle: false, pathSecrets: true, host: /./, aks: false },
  {
    name: "aws-lambda",
    subjectKind: "Group",
    caBundle: false,
    pathSecrets: true,
    host: /\.lambda-url\.[a-z0-9-]+\.on\.aws$/,
    aks: false,
  },
  { name: "azure-functions", subjectKind: "User", caBundle: false, pathSecrets: true, host: /./, aks: true },
] as const;
type Overlay = (typeof OVERLAYS)[number];
const FUNCTIONS: Fn[] = [...FUNCTION_NAMES];

const GET_CREDSPECS = { apiGroups: ["windows.k8s.io"], resources: ["gmsacredentialspecs"], verbs: ["get"] };
const CREATE_LSAR = {
  apiGroups: ["authorization.k8s.io"],
  resources: ["localsubjectaccessreviews"],
  verbs: ["create"],
};
/** The pod an exec or attach goes into (REVIEW_REQUESTING_USER). */
const GET_PODS = { apiGroups: [""], resources: ["pods"], verbs: ["get"] };
const RULES: Record<Fn, unknown[]> = { expand: [GET_CREDSPECS], authorize: [GET_CREDSPECS, CREATE_LSAR, GET_PODS] };

let dir = "";
/** Per path overlay, the secrets written to its path-secrets.env. */
const secrets = new Map<string, Record<Fn, string>>();
const rendered = new Map<string, KubeObject[]>();

const kustomize = (path: string) => kustomizeDir(join(dir, path));
const dryRunApply = (objects: KubeObject[]) => dryRunApplyAs(admin, objects);

/** KEY=VALUE lines of a kustomize env file (comments and blank lines skipped). */
async function readEnvFile(path: string): Promise<Record<string, string>> {
  const lines = (await readFile(path, "utf8")).split("\n").filter((line) => /^[A-Z_]+=/.test(line));
  return Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]));
}

const ids = (objects: KubeObject[]) => objects.map((o) => `${o.kind}/${o.metadata.name}`).sort();

beforeAll(async () => {
  const version = await kubectl(["version", "--client", "-o", "json"]);
  const kustomizeVersion = (JSON.parse(version.stdout) as { kustomizeVersion?: string }).kustomizeVersion ?? "";
  if (!/^v([5-9]|\d{2,})\./.test(kustomizeVersion))
    throw new Error(`kubectl embeds kustomize ${kustomizeVersion || "(unknown)"}; the overlays need v5 or later`);
  dir = await mkdtemp(join(tmpdir(), "gmsa-kustomize-"));
  for (const folder of [...BASES, "overlays"]) {
    await cp(join(INFRA, folder), join(dir, folder), {
      recursive: true,
      filter: (src) => !src.endsWith("path-secrets.env"),
    });
  }
  for (const overlay of OVERLAYS.filter((o) => o.pathSecrets)) {
    const values = { expand: randomBytes(24).toString("hex"), authorize: randomBytes(24).toString("hex") };
    secrets.set(overlay.name, values);
    await writeFile(
      join(dir, "overlays", overlay.name, "path-secrets.env"),
      `EXPAND_PATH_SECRET=${values.expand}\nAUTHORIZE_PATH_SECRET=${values.authorize}\n`,
    );
  }
  for (const [path, resource, component] of [
    [WITH_POLICY, "../node-in-cluster\n  - ../../policy", undefined],
    [WITH_SHADOW_MODE, "../node-in-cluster", "shadow-mode"],
    [WITH_EXEMPT, "../with-policy", "exempt-namespaces"],
  ]) {
    await mkdir(join(dir, path!));
    await writeFile(
      join(dir, path!, "kustomization.yaml"),
      `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ${resource}\n` +
        (component === undefined ? "" : `components:\n  - ../components/${component}\n`),
    );
  }
  const component = join(dir, "overlays", "components", "exempt-namespaces", "kustomization.yaml");
  await writeFile(
    component,
    (await readFile(component, "utf8")).replaceAll("value: [kube-system]", "value: [kube-system, legacy]"),
  );
  const paths = [...BASES, WITH_POLICY, WITH_SHADOW_MODE, WITH_EXEMPT, ...OVERLAYS.map((o) => `overlays/${o.name}`)];
  for (const path of paths) rendered.set(path, await kustomize(path));
  // The CRD must exist for sample credspecs, and the namespace for the ServiceAccounts.
  await applyBaseInfra(cluster);
});

afterAll(async () => {
  if (dir !== "") await rm(dir, { recursive: true, force: true });
});

describe("kustomize bases (infra/deploy/crd, rbac, webhooks, samples, policy)", () => {
  it.each(BASES)("%s renders and passes a server-side dry-run", async (path) => {
    const objects = rendered.get(path)!;
    expect(objects.length).toBeGreaterThan(0);
    await dryRunApply(objects);
  });

  it.each(FUNCTIONS)(
    "the webhooks base calls %s at an .invalid host with no caBundle, and is the file's webhook otherwise: Fail, None, 10 s, v1, CEL, every namespace but the exempt, ephemeral containers",
    async (fn) => {
      const webhook = webhookOf(rendered.get("webhooks")!, fn);
      const url = `${fn.toUpperCase()}_BASE_URL`;
      const file = await loadManifest(`webhooks/${fn}.yaml`, { [url]: "https://x", CA_BUNDLE: "" });
      expect(webhook.clientConfig).toEqual({ url: `https://gmsa-${fn}.invalid/${fn}` });
      expect(withoutClientConfig(webhook)).toEqual(withoutClientConfig(webhookOf(file, fn)));
      expect(webhook).toMatchObject({
        failurePolicy: "Fail",
        sideEffects: "None",
        timeoutSeconds: 10,
        admissionReviewVersions: ["v1"],
      });
      expect(webhook.matchConditions?.map((c) => c.name)).toEqual(["has-gmsa-reference"]);
      // Exempt by name only (issue 37): windows-gmsa's opt-out label could be set by whoever creates a namespace.
      expect(webhook.namespaceSelector).toEqual({
        matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "NotIn", values: ["kube-system"] }],
      });
      expect(webhook.rules).toContainEqual(
        expect.objectContaining({ apiGroups: [""], operations: ["CREATE", "UPDATE"], resources: ["pods"] }),
      );
      expect(webhook.rules).toContainEqual(
        expect.objectContaining({ apiGroups: [""], operations: ["UPDATE"], resources: ["pods/ephemeralcontainers"] }),
      );
      if (fn === "expand") expect(webhook.reinvocationPolicy).toBe("IfNeeded");
    },
  );
});

describe("kustomize overlays (infra/deploy/overlays)", () => {
  it("takes the optional policy beside an overlay, which it leaves as it is", async () => {
    const objects = rendered.get(WITH_POLICY)!;
    expect(ids(objects)).toEqual(
      [
        ...ids(rendered.get("overlays/node-in-cluster")!),
        "ValidatingAdmissionPolicy/gmsa-webhooks.windows.k8s.io",
        "ValidatingAdmissionPolicyBinding/gmsa-webhooks.windows.k8s.io",
      ].sort(),
    );
    await dryRunApply(objects);
  });

  it("shadow mode: authorize fails open and says so in its annotation; everything else as the overlay renders it", async () => {
    const plain = rendered.get("overlays/node-in-cluster")!;
    const shadow = rendered.get(WITH_SHADOW_MODE)!;
    const authorize = find(shadow, WEBHOOK_KIND.authorize, "gmsa-webhooks-authorize");
    expect(authorize.metadata.annotations).toEqual({ "gmsa-webhooks.windows.k8s.io/enforcement": "warn" });
    expect(webhookOf(shadow, "authorize")).toEqual({ ...webhookOf(plain, "authorize"), failurePolicy: "Ignore" });
    expect(webhookOf(shadow, "expand").failurePolicy).toBe("Fail");
    const withoutAuthorize = (objects: KubeObject[]) =>
      objects.filter((o) => o.metadata.name !== "gmsa-webhooks-authorize");
    expect(withoutAuthorize(shadow)).toEqual(withoutAuthorize(plain));
    await dryRunApply(shadow);
  });

  it("components/exempt-namespaces sets the names the webhooks and the policy exempt, nothing else", async () => {
    const exempt = rendered.get(WITH_EXEMPT)!;
    const plain = rendered.get(WITH_POLICY)!;
    const selector = {
      matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "NotIn", values: ["kube-system", "legacy"] }],
    };
    for (const fn of FUNCTIONS)
      expect(webhookOf(exempt, fn)).toEqual({ ...webhookOf(plain, fn), namespaceSelector: selector });
    const policy = find(exempt, "ValidatingAdmissionPolicy", "gmsa-webhooks.windows.k8s.io") as unknown as {
      spec: { matchConstraints: { namespaceSelector: unknown } };
    };
    expect(policy.spec.matchConstraints.namespaceSelector).toEqual(selector);
    const others = (objects: KubeObject[]) =>
      objects.filter((o) => !/WebhookConfiguration$|^ValidatingAdmissionPolicy$/.test(o.kind));
    expect(others(exempt)).toEqual(others(plain));
    await dryRunApply(exempt);
  });

  it("covers every overlay folder", async () => {
    const folders = (await readdir(join(INFRA, "overlays"), { withFileTypes: true }))
      .filter((entry) => entry.isDirectory() && entry.name !== "components")
      .map((entry) => entry.name);
    expect(folders.sort()).toEqual(OVERLAYS.map((o) => o.name).sort());
  });

  describe.each(OVERLAYS)("$name", (overlay: Overlay) => {
    const objects = () => rendered.get(`overlays/${overlay.name}`)!;

    it("renders the CRD, both identities and both webhooks, and nothing local (no ConfigMap, no Secret)", () => {
      const identities =
        overlay.subjectKind === "ServiceAccount"
          ? ["Namespace/gmsa-webhooks", "ServiceAccount/gmsa-authorize", "ServiceAccount/gmsa-expand"]
          : [];
      expect(ids(objects())).toEqual(
        [
          "ClusterRole/gmsa-webhooks:authorize",
          "ClusterRole/gmsa-webhooks:expand",
          "ClusterRoleBinding/gmsa-webhooks:authorize",
          "ClusterRoleBinding/gmsa-webhooks:expand",
          "CustomResourceDefinition/gmsacredentialspecs.windows.k8s.io",
          "MutatingWebhookConfiguration/gmsa-webhooks-expand",
          ...identities,
          "ValidatingWebhookConfiguration/gmsa-webhooks-authorize",
        ].sort(),
      );
    });

    it("passes a server-side dry-run, and the API server keeps each URL and caBundle as rendered", async () => {
      const accepted = await dryRunApply(objects());
      for (const fn of FUNCTIONS) {
        const { url, caBundle } = webhookOf(objects(), fn).clientConfig;
        expect(webhookOf(accepted, fn).clientConfig.url).toBe(url);
        if (caBundle === undefined) expect(webhookOf(accepted, fn).clientConfig.caBundle).toBeUndefined();
        else expect(webhookOf(accepted, fn).clientConfig.caBundle).toBe(caBundle.replace(/\s/g, ""));
      }
    });

    it.each(FUNCTIONS)(
      "calls %s at its endpoints.env URL (+ path secret), with a caBundle only for a private CA, and changes nothing else of the base's webhook",
      async (fn) => {
        const base = (await readEnvFile(join(dir, "overlays", overlay.name, "endpoints.env")))[
          `${fn.toUpperCase()}_BASE_URL`
        ];
        expect(base).toMatch(/^https:\/\/[^/]+$/);
        const secret = secrets.get(overlay.name)?.[fn];
        const webhook = webhookOf(objects(), fn);
        expect(withoutClientConfig(webhook)).toEqual(withoutClientConfig(webhookOf(rendered.get("webhooks")!, fn)));
        const { url, caBundle, service } = webhook.clientConfig;
        expect(url).toBe(secret === undefined ? `${base}/${fn}` : `${base}/${fn}/${secret}`);
        const parsed = new URL(url!);
        expect(parsed.protocol).toBe("https:");
        expect(parsed.host).toMatch(overlay.host);
        expect(parsed.hostname.endsWith(".invalid")).toBe(false);
        expect(service).toBeUndefined();
        if (overlay.caBundle) {
          const pem = await readFile(join(dir, "overlays", overlay.name, "ca.pem"), "utf8");
          expect(Buffer.from(caBundle!, "base64").toString("utf8")).toBe(pem);
          expect(pem).toContain("-----BEGIN CERTIFICATE-----");
        } else {
          expect(caBundle).toBeUndefined();
        }
      },
    );

    it.each(FUNCTIONS)(
      `annotates %s's configuration for AKS's Admissions Enforcer: ${overlay.aks ? "yes" : "no"}`,
      (fn) => {
        const annotations = find(objects(), WEBHOOK_KIND[fn], `gmsa-webhooks-${fn}`).metadata["annotations"];
        // Without it AKS adds namespaceSelector expressions that exclude kube-system (components/aks-admissions-enforcer).
        expect(annotations).toEqual(overlay.aks ? { "admissions.enforcer/disabled": "true" } : undefined);
      },
    );

    it.each(FUNCTIONS)(`grants %s least privilege, bound to one ${overlay.subjectKind}`, (fn) => {
      expect(find(objects(), "ClusterRole", `gmsa-webhooks:${fn}`).rules).toEqual(RULES[fn]);
      const binding = find(objects(), "ClusterRoleBinding", `gmsa-webhooks:${fn}`);
      expect(binding.roleRef).toEqual({
        apiGroup: "rbac.authorization.k8s.io",
        kind: "ClusterRole",
        name: `gmsa-webhooks:${fn}`,
      });
      const subjects = binding.subjects as { kind: string; name: string; namespace?: string }[];
      expect(subjects).toHaveLength(1);
      expect(subjects[0]!.kind).toBe(overlay.subjectKind);
      if (overlay.subjectKind === "ServiceAccount") {
        expect(subjects[0]).toEqual({ kind: "ServiceAccount", name: `gmsa-${fn}`, namespace: "gmsa-webhooks" });
      } else {
        expect(subjects[0]).toMatchObject({ apiGroup: "rbac.authorization.k8s.io" });
        expect(subjects[0]!.namespace).toBeUndefined();
      }
    });

    // CALLER_AUTH=path overlays only.
    if (!overlay.pathSecrets) return;
    it("puts each path secret in its own URL and nowhere else", () => {
      // Once in all the objects: in its URL, which the endpoints.env test above checks whole.
      const text = JSON.stringify(objects());
      for (const fn of FUNCTIONS) expect(text.split(secrets.get(overlay.name)![fn])).toHaveLength(2);
    });

    it("refuses to render without path-secrets.env, naming the file", async () => {
      await rm(join(dir, "overlays", overlay.name, "path-secrets.env"));
      await expect(kustomize(`overlays/${overlay.name}`)).rejects.toThrow(/path-secrets\.env/);
    });
  });

  it("`kubectl apply -k --server-side --dry-run=server` accepts an overlay as infra/deploy/overlays/README.md says to apply it", async () => {
    const { stdout } = await kubectl([
      "--kubeconfig",
      cluster.adminKubeconfig,
      "apply",
      "--server-side",
      "--force-conflicts",
      "--field-manager",
      "gmsa-webhooks-kustomize-test",
      "--dry-run=server",
      "-k",
      join(dir, "overlays", "node-in-cluster"),
    ]);
    expect(stdout).toContain(
      "mutatingwebhookconfiguration.admissionregistration.k8s.io/gmsa-webhooks-expand serverside-applied (server dry run)",
    );
  });

  it("infra/deploy/node/in-cluster.yaml passes a server-side dry-run, and the API server keeps each Deployment's affinity and each PodDisruptionBudget", async () => {
    const objects = await loadManifest("node/in-cluster.yaml");
    const accepted = await dryRunApply(objects);
    expect(ids(accepted)).toEqual(ids(objects));
    const budgets = ofKind(objects, "PodDisruptionBudget");
    expect(budgets.map((b) => b.metadata.name).sort()).toEqual(FUNCTIONS.map((fn) => `gmsa-${fn}`).sort());
    for (const budget of budgets) {
      expect(find(accepted, "PodDisruptionBudget", budget.metadata.name).spec).toMatchObject(budget.spec as object);
    }
    for (const deployment of ofKind(objects, "Deployment")) {
      const spec = (object: KubeObject) => (object.spec as { template: { spec: { affinity: unknown } } }).template.spec;
      expect(spec(find(accepted, "Deployment", deployment.metadata.name)).affinity).toEqual(spec(deployment).affinity);
    }
  });
});
