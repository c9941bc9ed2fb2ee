/** Kubernetes name rules (apimachinery `IsDNS1123Subdomain` / `IsDNS1123Label`), here so every layer may import them. */
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** A DNS-1123 label: at most 63 lowercase alphanumerics or '-', starting and ending alphanumeric (namespaces). */
export function isDns1123Label(name: string): boolean {
  return name.length <= 63 && DNS1123_LABEL.test(name);
}

/** A DNS-1123 subdomain: at most 253 characters of dot-separated labels (GMSACredentialSpecs, service accounts). */
export function isDns1123Subdomain(name: string): boolean {
  return name.length <= 253 && DNS1123_SUBDOMAIN.test(name);
}
