/**
 * Applies the manifests in infra/ to a local cluster with server-side apply over HTTPS (no kubectl:
 * Debian's kubectl is several minors behind the API server, and one request per object is faster
 * than a kubectl process per file). Placeholders are substituted in memory only.
 */
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import { parseAllDocuments } from "yaml";
import { adminEndpoint, type LocalClusterInfo } from "./cluster.ts";
import { kubeRequest, kubeRequestOk, type KubeEndpoint } from "./kube-request.ts";

/** What operators apply; manifest paths are relative to it. */
const DEPLOY_DIR = fileURLToPath(new URL("../deploy/", import.meta.url));

/** Field manager named in managedFields, so a person can tell our writes from theirs. */
const FIELD_MANAGER = "gmsa-webhooks-local";

/**
 * Manifests applied before the webhooks, in order (the namespace comes with infra/deploy/rbac/), by path under
 * infra/deploy/; the local cluster's own (`../local/`) are beside this file.
 */
export const BASE_MANIFESTS = [
  "crd/gmsacredentialspecs.yaml",
  "rbac/expand.yaml",
  "rbac/authorize.yaml",
  "../local/token-minter.yaml",
  "../local/jwt-rbac.yaml",
  "samples/rbac.yaml",
  "samples/credspecs.yaml",
] as const;

/** The webhook configurations, with placeholders. */
export const WEBHOOK_MANIFESTS = ["webhooks/expand.yaml", "webhooks/authorize.yaml"] as const;

/** Where the API server should call the functions. */
export interface ApplyWebhooksOptions {
  /** https base URL of expand, without `/expand` (e.g. `https://127.0.0.1:8443`). */
  expandUrl: string;
  /** https base URL of authorize, without `/authorize`. */
  authorizeUrl: string;
  /** PEM of the CA that signed the functions' certificate; omit when it is publicly trusted. */
  caBundlePem?: string;
}

/** A Kubernetes object as read from a manifest. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [key: string]: unknown };
  [key: string]: unknown;
}

/** REST paths of the kinds our manifests hold; apply fails loudly on any other kind. */
const PLURALS: Record<string, { plural: string; namespaced: boolean }> = {
  "v1/Namespace": { plural: "namespaces", namespaced: false },
  "v1/ServiceAccount": { plural: "serviceaccounts", namespaced: true },
  "v1/Secret": { plural: "secrets", namespaced: true },
  "v1/ConfigMap": { plural: "configmaps", namespaced: true },
  "v1/Service": { plural: "services", namespaced: true },
  "apps/v1/Deployment": { plural: "deployments", namespaced: true },
  "policy/v1/PodDisruptionBudget": { plural: "poddisruptionbudgets", namespaced: true },
  "networking.k8s.io/v1/NetworkPolicy": { plural: "networkpolicies", namespaced: true },
  "discovery.k8s.io/v1/EndpointSlice": { plural: "endpointslices", namespaced: true },
  "v1/Endpoints": { plural: "endpoints", namespaced: true },
  "apiextensions.k8s.io/v1/CustomResourceDefinition": { plural: "customresourcedefinitions", namespaced: false },
  "rbac.authorization.k8s.io/v1/ClusterRole": { plural: "clusterroles", namespaced: false },
  "rbac.authorization.k8s.io/v1/ClusterRoleBinding": { plural: "clusterrolebindings", namespaced: false },
  "rbac.authorization.k8s.io/v1/Role": { plural: "roles", namespaced: true },
  "rbac.authorization.k8s.io/v1/RoleBinding": { plural: "rolebindings", namespaced: true },
  "windows.k8s.io/v1/GMSACredentialSpec": { plural: "gmsacredentialspecs", namespaced: false },
  "admissionregistration.k8s.io/v1/MutatingWebhookConfiguration": {
    plural: "mutatingwebhookconfigurations",
    namespaced: false,
  },
  "admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration": {
    plural: "validatingwebhookconfigurations",
    namespaced: false,
  },
  "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy": {
    plural: "validatingadmissionpolicies",
    namespaced: false,
  },
  "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding": {
    plural: "validatingadmissionpolicybindings",
    namespaced: false,
  },
};

/** The REST path of one object. @throws Error for kinds missing from the table. */
export function objectPath(object: KubeObject): string {
  const entry = PLURALS[`${object.apiVersion}/${object.kind}`];
  if (!entry) throw new Error(`apply.ts does not know ${object.apiVersion} ${object.kind}`);
  const base = object.apiVersion.includes("/") ? `/apis/${object.apiVersion}` : `/api/${object.apiVersion}`;
  const namespace = entry.namespaced ? `/namespaces/${object.metadata.namespace ?? "default"}` : "";
  return `${base}${namespace}/${entry.plural}/${object.metadata.name}`;
}

/**
 * Reads a manifest by its path under infra/deploy/ and returns its objects, with `${NAME}` placeholders replaced from
 * `values`. @throws Error when a placeholder has no value.
 */
export async function loadManifest(relativePath: string, values: Record<string, string> = {}): Promise<KubeObject[]> {
  const text = await readFile(DEPLOY_DIR + relativePath, "utf8");
  // Only lines that are not comments: the headers document the placeholders by name.
  const substituted = text
    .split("\n")
    .map((line) =>
      line.trimStart().startsWith("#")
        ? line
        : line.replace(/\$\{([A-Z_]+)\}/g, (_, name: string) => {
            const value = values[name];
            if (value === undefined) throw new Error(`${relativePath}: no value for \${${name}}`);
            return value;
          }),
    )
    .join("\n");
  return parseAllDocuments(substituted)
    .map((document) => document.toJS() as KubeObject | null)
    .filter((object): object is KubeObject => object !== null);
}

/** Server-side applies objects one by one, in order (a namespace before what lives in it). */
export async function applyObjects(endpoint: KubeEndpoint, objects: KubeObject[]): Promise<void> {
  for (const object of objects) {
    await kubeRequestOk(endpoint, `${objectPath(object)}?fieldManager=${FIELD_MANAGER}&force=true`, {
      method: "PATCH",
      // JSON is YAML, and the apply content type is how server-side apply is requested.
      contentType: "application/apply-patch+yaml",
      body: JSON.stringify(object),
    });
  }
}

async function waitForEstablished(endpoint: KubeEndpoint, crd: KubeObject, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await kubeRequest<{ status?: { conditions?: { type: string; status: string }[] } }>(
      endpoint,
      objectPath(crd),
    );
    if (body.status?.conditions?.some((c) => c.type === "Established" && c.status === "True")) return;
    if (Date.now() > deadline) throw new Error(`CRD ${crd.metadata.name} not Established after ${timeoutMs} ms`);
    await sleep(100);
  }
}

/**
 * Applies everything but the webhooks: the CRD (waiting until it is Established), the functions'
 * RBAC, the local token minter's RBAC and the samples. Idempotent. Benchmarks use it alone to
 * measure pod admission without webhooks.
 */
export async function applyBaseInfra(cluster: LocalClusterInfo): Promise<void> {
  const admin = adminEndpoint(cluster);
  for (const manifest of BASE_MANIFESTS) {
    const objects = await loadManifest(manifest);
    await applyObjects(admin, objects);
    for (const crd of objects.filter((o) => o.kind === "CustomResourceDefinition")) {
      await waitForEstablished(admin, crd);
    }
  }
}

/** The webhook configurations with URLs and CA filled in (no caBundle when none is given). */
export async function renderWebhooks(options: ApplyWebhooksOptions): Promise<KubeObject[]> {
  const values = {
    EXPAND_BASE_URL: checkBaseUrl("expandUrl", options.expandUrl),
    AUTHORIZE_BASE_URL: checkBaseUrl("authorizeUrl", options.authorizeUrl),
    CA_BUNDLE: options.caBundlePem === undefined ? "" : Buffer.from(options.caBundlePem).toString("base64"),
  };
  const objects = (await Promise.all(WEBHOOK_MANIFESTS.map((m) => loadManifest(m, values)))).flat();
  if (options.caBundlePem === undefined) {
    for (const object of objects) {
      for (const webhook of object.webhooks as { clientConfig: { caBundle?: string } }[]) {
        delete webhook.clientConfig.caBundle;
      }
    }
  }
  return objects;
}

function checkBaseUrl(name: string, value: string): string {
  // The API server only calls webhooks over HTTPS (admissionregistration validation).
  if (!/^https:\/\/[^/]/.test(value)) throw new TypeError(`${name} must be an https URL, got ${value}`);
  return value.replace(/\/+$/, "");
}

/** Applies the MutatingWebhookConfiguration (expand) and ValidatingWebhookConfiguration (authorize). */
export async function applyWebhooks(cluster: LocalClusterInfo, options: ApplyWebhooksOptions): Promise<void> {
  await applyObjects(adminEndpoint(cluster), await renderWebhooks(options));
}

/** Deletes both webhook configurations (absent ones are fine), e.g. to benchmark without them. */
export async function deleteWebhooks(cluster: LocalClusterInfo): Promise<void> {
  const admin = adminEndpoint(cluster);
  const objects = await renderWebhooks({ expandUrl: "https://unused", authorizeUrl: "https://unused" });
  for (const object of objects) {
    const { status } = await kubeRequest(admin, objectPath(object), { method: "DELETE" });
    if (status !== 200 && status !== 202 && status !== 404) {
      throw new Error(`DELETE ${objectPath(object)}: HTTP ${status}`);
    }
  }
}
