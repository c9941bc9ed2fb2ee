/** The deploy targets' example files agree with the rest of infra/ and with what the functions accept. */
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { FUNCTIONS_NAMESPACE, serviceAccountName } from "../../../infra/build/manifests/rbac.ts";
import { parseKubeSettings, type FunctionName } from "../../../shared/config/index.ts";
import { selectTokenSource } from "../../../shared/credentials/select-token-source.ts";
import { parseKubeconfig } from "../../../shared/kubeconfig/kubeconfig.ts";
import { selectKubeTarget } from "../../../shared/kubeconfig/kube-target.ts";

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  spec?: {
    ports?: { port: number }[];
    minAvailable?: number;
    selector?: { matchLabels: Record<string, string> };
    template?: {
      metadata: { labels: Record<string, string> };
      spec: {
        affinity?: unknown;
        serviceAccountName: string;
        nodeSelector?: Record<string, string>;
        securityContext: { runAsNonRoot: boolean; runAsUser: number };
        containers: { env: { name: string; value?: string }[]; securityContext: Record<string, unknown> }[];
      };
    };
  };
}

const read = (file: string): Promise<string> => readFile(new URL(`../../../${file}`, import.meta.url), "utf8");

async function manifests(file: string): Promise<Manifest[]> {
  return parseAllDocuments(await read(file)).map((doc) => doc.toJS() as Manifest);
}

describe("infra/deploy/node/in-cluster.yaml", () => {
  it("runs one Deployment per function with that function's service account, non-root as the image's user, on Linux", async () => {
    const deployments = (await manifests("infra/deploy/node/in-cluster.yaml")).filter((m) => m.kind === "Deployment");
    expect(deployments.map((d) => d.metadata.name)).toEqual(["gmsa-expand", "gmsa-authorize"]);
    for (const deployment of deployments) {
      const pod = deployment.spec!.template!.spec;
      const fn = deployment.metadata.name.replace("gmsa-", "") as FunctionName;
      // infra/deploy/rbac/ holds FUNCTION_RBAC's accounts (manifests.test.ts).
      expect([deployment.metadata.namespace, pod.serviceAccountName]).toEqual([
        FUNCTIONS_NAMESPACE,
        serviceAccountName(fn),
      ]);
      expect(pod.nodeSelector).toEqual({ "kubernetes.io/os": "linux" });
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
      const [container] = pod.containers;
      const env = Object.fromEntries(container!.env.map((e) => [e.name, e.value]));
      expect(env["FUNCTIONS"]).toBe(fn);
      expect(env).not.toHaveProperty("KUBECONFIG");
      expect(container!.securityContext).toMatchObject({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
      });
    }
  });
  it("gives each function a policy/v1 PodDisruptionBudget of minAvailable 1 that selects exactly that function's pods", async () => {
    const all = await manifests("infra/deploy/node/in-cluster.yaml");
    const deployments = all.filter((m) => m.kind === "Deployment");
    const budgets = all.filter((m) => m.kind === "PodDisruptionBudget");
    expect(budgets).toHaveLength(deployments.length);
    const selects = (selector: Record<string, string>, labels: Record<string, string>) =>
      Object.entries(selector).every(([key, value]) => labels[key] === value);
    for (const deployment of deployments) {
      const labels = deployment.spec!.template!.metadata.labels;
      const budget = budgets.find((b) => selects(b.spec!.selector!.matchLabels, labels));
      expect(budget, deployment.metadata.name).toBeDefined();
      expect(budget).toMatchObject({
        apiVersion: "policy/v1",
        metadata: { name: deployment.metadata.name, namespace: deployment.metadata.namespace },
        spec: { minAvailable: 1 },
      });
      expect(budget!.spec!.selector!.matchLabels).toEqual(deployment.spec!.selector!.matchLabels);
      // A budget that also selected the other function's pods could let a drain evict every replica of one of them.
      for (const other of deployments.filter((d) => d !== deployment)) {
        expect(selects(budget!.spec!.selector!.matchLabels, other.spec!.template!.metadata.labels)).toBe(false);
      }
    }
  });
  it("prefers each function's replicas on different nodes, as the Helm chart's default affinity does", async () => {
    const deployments = (await manifests("infra/deploy/node/in-cluster.yaml")).filter((m) => m.kind === "Deployment");
    for (const deployment of deployments) {
      expect(deployment.spec!.template!.spec.affinity, deployment.metadata.name).toEqual({
        podAntiAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            {
              weight: 100,
              podAffinityTerm: {
                topologyKey: "kubernetes.io/hostname",
                labelSelector: { matchLabels: deployment.spec!.template!.metadata.labels },
              },
            },
          ],
        },
      });
    }
  });
  it("serves each function at the host and port of its URL in infra/deploy/overlays/node-in-cluster/endpoints.env", async () => {
    const env = await read("infra/deploy/overlays/node-in-cluster/endpoints.env");
    const urls = [...env.matchAll(/^(EXPAND|AUTHORIZE)_BASE_URL=(\S+)$/gm)].map((match) => new URL(match[2]!));
    expect(urls).toHaveLength(2);
    const services = (await manifests("infra/deploy/node/in-cluster.yaml")).filter((m) => m.kind === "Service");
    for (const url of urls) {
      const service = services.find((m) => url.hostname === `${m.metadata.name}.${m.metadata.namespace}.svc`);
      expect(service, url.hostname).toBeDefined();
      expect(service!.spec!.ports!.map((p) => p.port)).toContain(Number(url.port || 443));
    }
  });
});

/** The user an example kubeconfig selects, checked to parse cleanly and to hold no static credential. */
async function exampleUser(file: string, resolvePath?: (entry: string) => string) {
  const text = await read(file);
  expect(text).not.toMatch(/^\s*(token|tokenFile|client-key-data|password):/m);
  const parsed = parseKubeconfig(text, { source: file, ...(resolvePath ? { resolvePath } : {}) });
  expect(parsed.problems).toEqual([]);
  const { target, problems } = selectKubeTarget(parsed.config!);
  expect(problems).toEqual([]);
  return target!;
}

describe.each([
  { file: "infra/deploy/aws/kubeconfig.exec.example.yaml", args: ["token", "eks", "--cluster", "prod"] },
  { file: "infra/deploy/azure/kubeconfig.exec.example.yaml", args: ["token", "aks", "--client-id"] },
])("$file", ({ file, args }) => {
  it("parses into an exec plugin the functions accept, with no static credential", async () => {
    const target = await exampleUser(file, (entry) => new URL(entry, "file:///srv/app/").pathname);
    expect(target.auth.kind).toBe("exec");
    if (target.auth.kind !== "exec") return;
    expect(target.auth.exec).toMatchObject({ command: "/srv/app/gmsa-webhooks.mjs", interactiveMode: "Never" });
    expect(target.auth.exec.args.join(" ")).toContain(args.join(" "));
  });
});

const NODE = {
  runtime: "Node",
  exec: true,
  tokenFile: true,
  clientCertificate: true,
  cloudTokens: ["eks", "aks", "gke"],
} as const;

describe.each([
  {
    file: "infra/deploy/aws/kubeconfig.example.yaml",
    env: {
      CLOUD_TOKEN: "eks",
      EKS_CLUSTER_NAME: "prod",
      AWS_REGION: "eu-west-1",
      AWS_ACCESS_KEY_ID: "AKID",
      AWS_SECRET_ACCESS_KEY: "s",
    },
  },
  {
    file: "infra/deploy/azure/kubeconfig.example.yaml",
    env: {
      CLOUD_TOKEN: "aks",
      AKS_CLIENT_ID: "c",
      IDENTITY_ENDPOINT: "http://127.0.0.1:41741/msi/token",
      IDENTITY_HEADER: "h",
    },
  },
])("$file", ({ file, env }) => {
  it("parses into a user without a credential, which docs/configuration.md's CLOUD_TOKEN settings give one", async () => {
    const target = await exampleUser(file);
    expect(target.auth.kind).toBe("none");
    const { settings, problems } = parseKubeSettings(env);
    expect(problems).toEqual([]);
    expect(selectTokenSource(target, settings, NODE).choice).toEqual({
      kind: "cloud",
      cloudToken: settings.cloudToken,
    });
  });
});
