// The GMSACredentialSpec resource (infra/deploy/crd/gmsacredentialspecs.yaml), named once for every layer.
/** API group of the CRD. */
export const CREDSPEC_GROUP = "windows.k8s.io";
/** `apiVersion` of a GMSACredentialSpec object. */
export const CREDSPEC_API_VERSION = `${CREDSPEC_GROUP}/v1`;
/** `kind` of a GMSACredentialSpec object. */
export const CREDSPEC_KIND = "GMSACredentialSpec";
/** The resource (plural) name, as in RBAC rules, access reviews and URL paths. */
export const CREDSPEC_RESOURCE = "gmsacredentialspecs";
/** The RBAC verb a pod's service account needs on a credspec to name it (KEP-689). */
export const CREDSPEC_USE_VERB = "use";
