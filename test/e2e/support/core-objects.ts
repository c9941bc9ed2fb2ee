/** Namespaces and service accounts for `applyObjects`: no controller manager runs, so even `default` is made by hand. */
import type { KubeObject } from "../../../infra/local/index.ts";

/** A Namespace, labelled with `labels` when given. */
export const namespace = (name: string, labels?: Record<string, string>): KubeObject => ({
  apiVersion: "v1",
  kind: "Namespace",
  metadata: { name, ...(labels === undefined ? {} : { labels }) },
});

/** A ServiceAccount `name` in `namespace`. */
export const serviceAccount = (name: string, namespace: string): KubeObject => ({
  apiVersion: "v1",
  kind: "ServiceAccount",
  metadata: { name, namespace },
});
