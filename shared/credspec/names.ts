import { isDns1123Label, isDns1123Subdomain } from "../policy/names.ts";

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

/**
 * Turns a gMSA account name into a GMSACredentialSpec name (lowercase, other characters `-`, labels trimmed of `-`,
 * empty labels dropped); undefined when nothing valid is left.
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
