import { isDns1123Label, isDns1123Subdomain } from "../policy/names.ts";

/** A service account named on the command line as `namespace:name`. */
export interface ServiceAccountRef {
  namespace: string;
  name: string;
}

/**
 * Parses `namespace:name` into a service account reference, or undefined when either part is not a valid
 * Kubernetes name (namespace: DNS-1123 label; service account: DNS-1123 subdomain).
 */
export function parseServiceAccountRef(text: string): ServiceAccountRef | undefined {
  const [namespace, name, ...rest] = text.split(":");
  if (namespace === undefined || name === undefined || rest.length > 0) return undefined;
  if (!isDns1123Label(namespace) || !isDns1123Subdomain(name)) return undefined;
  return { namespace, name };
}

/**
 * True when `name` can name a ClusterRole or RoleBinding: RBAC accepts any non-empty path segment name
 * (Kubernetes `ValidateRBACName`, apimachinery `IsValidPathSegmentName`: not `.` or `..`, no `/` or `%`).
 */
export function isRbacName(name: string): boolean {
  return name !== "" && name !== "." && name !== ".." && !/[/%]/.test(name);
}

/**
 * Turns a gMSA account name into a GMSACredentialSpec name: lowercase, characters outside `[a-z0-9.-]` become `-`,
 * each dot-separated label trimmed of leading and trailing `-`, empty labels dropped. Undefined when nothing valid
 * is left (the caller then needs an explicit name).
 */
export function deriveCredSpecName(accountName: string): string | undefined {
  const name = accountName
    .toLowerCase()
    .split(".")
    .map((label) => label.replace(/[^a-z0-9-]+/g, "-").replace(/^-+|-+$/g, ""))
    .filter((label) => label !== "")
    .join(".");
  return isDns1123Subdomain(name) ? name : undefined;
}
