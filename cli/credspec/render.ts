import { stringify } from "yaml";
import { isDns1123Label, isDns1123Subdomain } from "../../shared/policy/checks.ts";
import type { CredSpecDocument } from "./validate.ts";
import {
  CREDSPEC_API_VERSION,
  CREDSPEC_GROUP,
  CREDSPEC_KIND,
  CREDSPEC_RESOURCE,
  CREDSPEC_USE_VERB,
} from "../../shared/credspec/resource.ts";

/** A service account named on the command line as `namespace:name`. */
export interface ServiceAccountRef {
  namespace: string;
  name: string;
}

/** Parses `namespace:name`; undefined unless both are valid names (DNS-1123 label, DNS-1123 subdomain). */
export function parseServiceAccountRef(text: string): ServiceAccountRef | undefined {
  const [namespace, name, ...rest] = text.split(":");
  if (namespace === undefined || name === undefined || rest.length > 0) return undefined;
  if (!isDns1123Label(namespace) || !isDns1123Subdomain(name)) return undefined;
  return { namespace, name };
}

/** True when `name` can name a ClusterRole or RoleBinding (Kubernetes `ValidateRBACName`: a path segment name). */
export function isRbacName(name: string): boolean {
  return name !== "" && name !== "." && name !== ".." && !/[/%]/.test(name);
}

/** A gMSA account name as a GMSACredentialSpec name (lowercased, labels of [a-z0-9-]); undefined when nothing valid is left. */
export function deriveCredSpecName(accountName: string): string | undefined {
  const name = accountName
    .toLowerCase()
    .split(".")
    .map((label) => label.replace(/[^a-z0-9-]+/g, "-").replace(/^-+|-+$/g, ""))
    .filter((label) => label !== "")
    .join(".");
  return isDns1123Subdomain(name) ? name : undefined;
}

/** A Kubernetes object as this tool prints it. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  [field: string]: unknown;
}

const RBAC_API_VERSION = "rbac.authorization.k8s.io/v1";

/**
 * Builds what the GMSA KEP has the cluster admin write by hand: the GMSACredentialSpec `name` (the document as given,
 * key order kept), a ClusterRole `roleName` allowing `use` of it, and a RoleBinding per distinct service account in its
 * namespace (where authorize's LocalSubjectAccessReview checks `use`). The caller has checked the names.
 */
export function buildCredSpecResources(
  document: CredSpecDocument,
  {
    name,
    roleName = `${name}-use`,
    serviceAccounts = [],
  }: { name: string; roleName?: string | undefined; serviceAccounts?: readonly ServiceAccountRef[] },
): KubeObject[] {
  const credSpec: KubeObject = {
    apiVersion: CREDSPEC_API_VERSION,
    kind: CREDSPEC_KIND,
    metadata: { name },
    credspec: structuredClone(document),
  };
  const role: KubeObject = {
    apiVersion: RBAC_API_VERSION,
    kind: "ClusterRole",
    metadata: { name: roleName },
    rules: [
      {
        apiGroups: [CREDSPEC_GROUP],
        resources: [CREDSPEC_RESOURCE],
        verbs: [CREDSPEC_USE_VERB],
        resourceNames: [name],
      },
    ],
  };
  const distinct = new Map(serviceAccounts.map((sa) => [`${sa.namespace}:${sa.name}`, sa]));
  const bindings = [...distinct.values()].map(({ namespace, name: account }) => ({
    apiVersion: RBAC_API_VERSION,
    kind: "RoleBinding",
    metadata: { name: `${roleName}-${account}`, namespace },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: roleName },
    subjects: [{ kind: "ServiceAccount", name: account, namespace }],
  }));
  return [credSpec, role, ...bindings];
}

/** Output formats of {@link formatKubeObjects}. */
export const OUTPUT_FORMATS = ["yaml", "json"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** Serializes objects for `kubectl apply -f -`: YAML documents separated by `---`, or JSON as a `v1` `List`. */
export function formatKubeObjects(objects: readonly KubeObject[], format: OutputFormat): string {
  if (format === "json") return `${JSON.stringify({ apiVersion: "v1", kind: "List", items: objects }, null, 2)}\n`;
  // YAML 1.1 quoting: kubectl reads YAML 1.1, where plain `yes`, `on` or `1:20` are not strings, while the yaml
  // package defaults to 1.2 and would leave them unquoted. Quoting them keeps every credspec string a string.
  return objects.map((object) => stringify(object, { version: "1.1" })).join("---\n");
}
