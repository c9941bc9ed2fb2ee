/** RFC 1123 subdomain as Kubernetes validates object names (apimachinery `IsDNS1123Subdomain`). */
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const MAX_SUBDOMAIN_LENGTH = 253;

/** True when `name` can be the name of a cluster-scoped GMSACredentialSpec. */
export function isCredSpecName(name: string): boolean {
  return name.length > 0 && name.length <= MAX_SUBDOMAIN_LENGTH && DNS1123_SUBDOMAIN.test(name);
}
