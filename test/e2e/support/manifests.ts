/**
 * Rendered manifests (`kubectl kustomize`, `helm template`) as the tests read them: objects by kind and name, the
 * webhook of a function's configuration, and a server-side apply dry run by the real API server.
 */
import { parseAllDocuments } from "yaml";
import { kubeRequestOk, objectPath, type KubeEndpoint, type KubeObject } from "../../../infra/local/index.ts";
import { kubectl } from "./kubectl.ts";

export type Fn = "expand" | "authorize";

export const WEBHOOK_KIND: Record<Fn, string> = {
  expand: "MutatingWebhookConfiguration",
  authorize: "ValidatingWebhookConfiguration",
};

/** A webhook of a configuration, with the fields the tests read. */
export interface Webhook {
  clientConfig: {
    url?: string;
    caBundle?: string;
    service?: { namespace: string; name: string; port: number; path: string };
  };
  rules: { apiGroups: string[]; operations: string[]; resources: string[] }[];
  namespaceSelector: { matchExpressions: { key: string; operator: string; values: string[] }[] };
  matchConditions?: { name: string; expression: string }[];
  [key: string]: unknown;
}

/** The objects of a multi-document YAML stream, empty documents left out. */
export function parseObjects(yaml: string): KubeObject[] {
  return parseAllDocuments(yaml)
    .map((document) => document.toJS() as KubeObject | null)
    .filter((object): object is KubeObject => object !== null);
}

/** `kubectl kustomize <dir>`. */
export async function kustomize(dir: string): Promise<KubeObject[]> {
  return parseObjects((await kubectl(["kustomize", dir])).stdout);
}

export const ofKind = (objects: KubeObject[], kind: string) => objects.filter((o) => o.kind === kind);

/** The object of `kind` named `name`. @throws Error listing what there is. */
export function find(objects: KubeObject[], kind: string, name: string): KubeObject {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found)
    throw new Error(`no ${kind}/${name} among ${objects.map((o) => `${o.kind}/${o.metadata.name}`).join(", ")}`);
  return found;
}

/** The webhook of `fn`'s configuration `<prefix>-<fn>`. */
export const webhookOf = (objects: KubeObject[], fn: Fn, prefix = "gmsa-webhooks") =>
  (find(objects, WEBHOOK_KIND[fn], `${prefix}-${fn}`).webhooks as Webhook[])[0]!;

export const withoutClientConfig = ({ clientConfig: _clientConfig, ...rest }: Webhook) => rest;

/** Server-side apply with dryRun=All: validated and admitted as a real apply, stored nowhere. @returns the answers. */
export async function dryRunApply(admin: KubeEndpoint, objects: KubeObject[]): Promise<KubeObject[]> {
  const results: KubeObject[] = [];
  for (const object of objects) {
    const query = "dryRun=All&fieldManager=gmsa-webhooks-e2e&force=true";
    results.push(
      await kubeRequestOk<KubeObject>(admin, `${objectPath(object)}?${query}`, {
        method: "PATCH",
        contentType: "application/apply-patch+yaml",
        body: JSON.stringify(object),
      }),
    );
  }
  return results;
}
