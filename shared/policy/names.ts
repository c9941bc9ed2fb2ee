/**
 * Kubernetes object name rules (apimachinery `validation.IsDNS1123Subdomain` / `IsDNS1123Label`), stated once for
 * every layer: here because shared/policy may import only its own files, and the kube client, the credspec tools
 * and the CLI may all import from shared/policy.
 */

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const MAX_LABEL_LENGTH = 63;
const MAX_SUBDOMAIN_LENGTH = 253;

/** A DNS-1123 label: at most 63 lowercase alphanumerics or '-', starting and ending alphanumeric (namespaces). */
export function isDns1123Label(name: string): boolean {
  return name.length <= MAX_LABEL_LENGTH && DNS1123_LABEL.test(name);
}

/**
 * A DNS-1123 subdomain: at most 253 characters of dot-separated labels (GMSACredentialSpecs, which are
 * cluster-scoped, and service accounts).
 */
export function isDns1123Subdomain(name: string): boolean {
  return name.length <= MAX_SUBDOMAIN_LENGTH && DNS1123_SUBDOMAIN.test(name);
}
