import { isDns1123Subdomain } from "../policy/names.ts";
import type { CredSpecDocument } from "./validate.ts";
import { isRbacName, type ServiceAccountRef } from "./names.ts";
import { CREDSPEC_API_VERSION, CREDSPEC_GROUP, CREDSPEC_KIND, CREDSPEC_RESOURCE, CREDSPEC_USE_VERB } from "./resource.ts";

/** Options of {@link buildCredSpecResources}. */
export interface CredSpecResourceOptions {
  /** `metadata.name` of the GMSACredentialSpec: a DNS-1123 subdomain of at most 253 characters. */
  name: string;
  /** Name of the ClusterRole that grants `use`. Default: `<name>-use`. */
  roleName?: string | undefined;
  /** Service accounts to bind to the ClusterRole, one RoleBinding each in its namespace. Default: none. */
  serviceAccounts?: readonly ServiceAccountRef[] | undefined;
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
 * Builds what the GMSA KEP has the cluster admin write by hand: the GMSACredentialSpec (the document as given, key
 * order kept), a ClusterRole allowing `use` of it, and a RoleBinding per distinct service account in its namespace
 * (where authorize's LocalSubjectAccessReview checks `use`: docs/security.md, Access reviews).
 * @throws TypeError when `name` is not a DNS-1123 subdomain or `roleName` is not a valid RBAC name.
 */
export function buildCredSpecResources(document: CredSpecDocument, options: CredSpecResourceOptions): KubeObject[] {
  const { name } = options;
  const roleName = options.roleName ?? `${name}-use`;
  if (!isDns1123Subdomain(name)) throw new TypeError("name must be a DNS-1123 subdomain of at most 253 characters");
  if (!isRbacName(roleName)) throw new TypeError("roleName must be a valid RBAC object name");
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
    rules: [{ apiGroups: [CREDSPEC_GROUP], resources: [CREDSPEC_RESOURCE], verbs: [CREDSPEC_USE_VERB], resourceNames: [name] }],
  };
  const serviceAccounts = new Map((options.serviceAccounts ?? []).map((sa) => [`${sa.namespace}:${sa.name}`, sa]));
  return [credSpec, role, ...[...serviceAccounts.values()].map((sa) => bind(roleName, sa))];
}

function bind(roleName: string, serviceAccount: ServiceAccountRef): KubeObject {
  return {
    apiVersion: RBAC_API_VERSION,
    kind: "RoleBinding",
    metadata: { name: `${roleName}-${serviceAccount.name}`, namespace: serviceAccount.namespace },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: roleName },
    subjects: [{ kind: "ServiceAccount", name: serviceAccount.name, namespace: serviceAccount.namespace }],
  };
}
