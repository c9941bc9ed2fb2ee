/** The GMSACredentialSpec CustomResourceDefinition (infra/deploy/crd/), named from shared/credspec/resource.ts. */
import { CREDSPEC_GROUP, CREDSPEC_KIND, CREDSPEC_RESOURCE } from "../../../shared/credspec/resource.ts";
import { anchored, commented } from "./notes.ts";

/** An object schema that keeps fields it does not list (credential specs grow fields over time). */
const open = (properties: Record<string, unknown>) => ({
  type: "object",
  "x-kubernetes-preserve-unknown-fields": true,
  properties,
});

const string = { type: "string" };

/** The schema of both versions (written once, with anchor `schema`). */
function buildSchema() {
  const credspec = commented(
    {
      description: "GMSA credential spec contents, as printed by New-CredentialSpec.",
      type: "object",
      "x-kubernetes-preserve-unknown-fields": true,
      properties: {
        CmsPlugins: { type: "array", items: { type: "string" } },
        DomainJoinConfig: open({
          Sid: string,
          MachineAccountName: string,
          Guid: string,
          DnsTreeName: string,
          DnsName: string,
          NetBiosName: string,
        }),
        ActiveDirectoryConfig: open({
          GroupManagedServiceAccounts: { type: "array", items: open({ Name: string, Scope: string }) },
        }),
      },
    },
    {
      "x-kubernetes-preserve-unknown-fields":
        "Credential specs grow fields over time (ActiveDirectoryConfig.HostAccountConfig\n" +
        "for nodes that are not domain-joined) and the webhooks inline them verbatim, so\n" +
        "nothing may be pruned. Preserving applies per object node, hence repeated below.",
    },
  );
  return anchored({ openAPIV3Schema: { type: "object", properties: { credspec } } }, "schema");
}

/** The CRD: v1 stored; v1alpha1, windows-gmsa's first version, still served with the same schema. */
function buildCrd() {
  const schema = buildSchema();
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: {
      name: `${CREDSPEC_RESOURCE}.${CREDSPEC_GROUP}`,
      annotations: commented(
        {
          "api-approved.kubernetes.io":
            "https://github.com/kubernetes/enhancements/tree/master/keps/sig-windows/689-windows-gmsa",
        },
        {
          "api-approved.kubernetes.io":
            "windows.k8s.io is a protected group: the API server requires this annotation to point at\n" +
            "the approved API (https://github.com/kubernetes/enhancements/pull/1111).",
        },
      ),
    },
    spec: {
      group: CREDSPEC_GROUP,
      scope: "Cluster",
      names: {
        kind: CREDSPEC_KIND,
        listKind: `${CREDSPEC_KIND}List`,
        plural: CREDSPEC_RESOURCE,
        singular: CREDSPEC_KIND.toLowerCase(),
      },
      versions: [
        { name: "v1", served: true, storage: true, schema },
        { name: "v1alpha1", served: true, storage: false, deprecated: true, schema },
      ],
    },
  };
}

/** The GMSACredentialSpec CRD as infra/deploy/crd/gmsacredentialspecs.yaml holds it. */
export const CREDSPEC_CRD = buildCrd();

/** The header of infra/deploy/crd/gmsacredentialspecs.yaml. */
export const CRD_FILE_HEADER = `GMSACredentialSpec: one Windows credential spec (the JSON that New-CredentialSpec prints)
per cluster-scoped resource. Same shape and versions as kubernetes-sigs/windows-gmsa's CRD:
v1 is stored; v1alpha1, its first version, is still served (deprecated, same schema), so a
cluster that ran windows-gmsa keeps objects stored as v1alpha1 (status.storedVersions) and
manifests written against it. Both versions have one schema, so no conversion is needed.`;
