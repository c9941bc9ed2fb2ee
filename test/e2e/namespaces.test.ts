/**
 * Which namespaces the webhooks of infra/deploy/webhooks/ enforce, through the real API server and the Node
 * functions: every namespace but those the operator exempts by name (`kubernetes.io/metadata.name`,
 * kube-system as shipped). A namespace labelled `windows.k8s.io/disabled: "true"` (the opt-out of
 * kubernetes-sigs/windows-gmsa) is enforced: whoever creates a namespace can set that label, so honouring it
 * let them opt their own namespace out (issue 37, L2). Pods are created with server-side dry-run (the webhooks run,
 * nothing is stored). That pods without GMSA settings never reach the functions: webhook-config.test.ts.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { adminEndpoint, applyBaseInfra, applyObjects, kubeRequest, type KubeObject } from "../../infra/local/index.ts";
import { gmsaPod } from "./support/install-checks.ts";
import { createPod, parsed, readCredSpec, reviewCounts, useRegisteredFunctions } from "./support/pods.ts";
import { binding, sa } from "../support/rbac.ts";
import { namespace, serviceAccount } from "./support/core-objects.ts";

const cluster = inject("cluster");
const admin = adminEndpoint(cluster);
const OLD_LABEL = "gmsa-old-opt-out";
const SERVICE_ACCOUNT = "gmsa-system";
const GROUP = "namespaces";

/** A dry-run create in `namespace` of a pod of {@link SERVICE_ACCOUNT} naming webapp01. */
const dryRunCreate = (namespace: string, name: string) =>
  createPod(cluster, gmsaPod(GROUP, name, SERVICE_ACCOUNT), { dryRun: true, namespace });

let webapp01: unknown;

beforeAll(async () => {
  await applyBaseInfra(cluster);
  const objects: KubeObject[] = [
    // As a namespace creator would make it, to opt their own namespace out.
    namespace(OLD_LABEL, { "windows.k8s.io/disabled": "true" }),
    ...["kube-system", OLD_LABEL].map((ns) => serviceAccount(SERVICE_ACCOUNT, ns)),
  ];
  await applyObjects(admin, objects);
  webapp01 = await readCredSpec(cluster, "webapp01");
});
const functions = useRegisteredFunctions(cluster);

afterAll(async () => {
  await kubeRequest(
    admin,
    `/apis/rbac.authorization.k8s.io/v1/namespaces/${OLD_LABEL}/rolebindings/${SERVICE_ACCOUNT}-uses-webapp01`,
    { method: "DELETE" },
  );
});

describe("namespaces the webhooks enforce", () => {
  it('reviews a GMSA pod in a namespace labelled windows.k8s.io/disabled: "true": 403 without `use`, expanded once granted', async () => {
    const refused = await dryRunCreate(OLD_LABEL, "old-label-refused");
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/service account "gmsa-system".*"webapp01"/);

    const useWebapp01 = { kind: "ClusterRole", name: "gmsa-use-webapp01" } as const;
    await applyObjects(admin, [
      binding(`${SERVICE_ACCOUNT}-uses-webapp01`, useWebapp01, [sa(SERVICE_ACCOUNT, OLD_LABEL)], OLD_LABEL),
    ]);
    const allowed = await dryRunCreate(OLD_LABEL, "old-label-allowed");
    expect(allowed.status).toBe(201);
    expect(parsed(allowed.body.spec?.securityContext?.windowsOptions?.gmsaCredentialSpec)).toEqual(webapp01);
  });

  it("never sends a GMSA pod in an exempt namespace, kube-system as shipped (left as written)", async () => {
    const before = await reviewCounts(functions());
    const created = await dryRunCreate("kube-system", "exempt");
    expect(created.status).toBe(201);
    expect(created.body.spec?.securityContext?.windowsOptions).toEqual({ gmsaCredentialSpecName: "webapp01" });
    expect(await reviewCounts(functions())).toEqual(before);
  });
});
