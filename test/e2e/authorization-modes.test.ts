/**
 * REVIEW_REQUESTING_USER and ENFORCEMENT through the real API server and the Node functions (issue 14, sections
 * 1 and 5). Each setting needs its own functions stack: one is started per describe block, and the webhooks are
 * registered for it.
 */
import { readFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { applyBaseInfra, applyObjects, deleteWebhooks } from "../../infra/local/apply.ts";
import { adminEndpoint } from "../../infra/local/cluster.ts";
import { kubeRequest } from "../../infra/local/kube-request.ts";
import { applyFunctionsWebhooks, startFunctions, type FunctionsStack } from "../../infra/local/stack.ts";
import { buildPod, container, createPod, deletePods, PODS, type Pod, type Status } from "./support/pods.ts";

const cluster = inject("cluster");
const admin = adminEndpoint(cluster);
const GROUP = "authorization-modes";
/** May add ephemeral containers to pods in `default`, and nothing about credspecs. */
const DEBUGGER = "debugger@example.com";

/** Adds ephemeral container "debug" naming webapp01 to `pod`, as {@link DEBUGGER} (impersonated by the admin). */
function debugAsUser(pod: string) {
  const body = { spec: { ephemeralContainers: [container("debug", { gmsaCredentialSpecName: "webapp01" })] } };
  return kubeRequest<Pod & Status>(admin, `${PODS}/${pod}/ephemeralcontainers`, {
    method: "PATCH",
    contentType: "application/strategic-merge-patch+json",
    body,
    headers: { "Impersonate-User": DEBUGGER, "Impersonate-Group": "system:authenticated" },
  });
}

/** A pod whose service account (`gmsa-app`) may use webapp01, without GMSA settings of its own. */
const debuggable = (name: string) => buildPod(GROUP, name, { serviceAccountName: "gmsa-app" });

let stack: FunctionsStack | undefined;

async function restartFunctions(env: Record<string, string>): Promise<void> {
  await stack?.stop();
  stack = await startFunctions(cluster, { runtime: "node", dir: cluster.dir, env });
  await applyFunctionsWebhooks(cluster, stack);
}

beforeAll(async () => {
  await applyBaseInfra(cluster);
  await applyObjects(admin, [
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: { name: "ephemeral-debugger", namespace: "default" },
      rules: [
        { apiGroups: [""], resources: ["pods"], verbs: ["get"] },
        { apiGroups: [""], resources: ["pods/ephemeralcontainers"], verbs: ["update", "patch"] },
      ],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name: "ephemeral-debugger", namespace: "default" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "ephemeral-debugger" },
      subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: DEBUGGER }],
    },
  ]);
});

afterEach(async () => {
  await deletePods(cluster, GROUP);
});

afterAll(async () => {
  await deleteWebhooks(cluster);
  await stack?.stop();
});

describe("REVIEW_REQUESTING_USER", () => {
  it("ephemeral: refuses a user without `use` an ephemeral container naming the credspec (403)", async () => {
    await restartFunctions({ REVIEW_REQUESTING_USER: "ephemeral" });
    expect((await createPod(cluster, debuggable("user-refused"))).status).toBe(201);
    const refused = await debugAsUser("user-refused");
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain(`ephemeral container "debug": user "${DEBUGGER}" is not allowed to use GMSACredentialSpec "webapp01"`);
  });

  it("off: allows the same user the same ephemeral container (the service account may use it)", async () => {
    await restartFunctions({ REVIEW_REQUESTING_USER: "off" });
    expect((await createPod(cluster, debuggable("user-allowed"))).status).toBe(201);
    const allowed = await debugAsUser("user-allowed");
    expect(allowed.status).toBe(200);
    expect(allowed.body.spec?.ephemeralContainers?.[0]?.securityContext?.windowsOptions?.gmsaCredentialSpec).toBeDefined();
  });
});

describe("ENFORCEMENT=warn", () => {
  it("creates a pod authorize would deny, with the denial as a Warning header and an audit annotation", async () => {
    await restartFunctions({ ENFORCEMENT: "warn" });
    // `default` may use no credspec (infra/samples/rbac.yaml): in deny mode this is a 403.
    const pod = buildPod(GROUP, "shadow", { serviceAccountName: "default", windowsOptions: { gmsaCredentialSpecName: "webapp01" } });
    const created = await createPod(cluster, pod);
    expect(created.status).toBe(201);
    const warnings = [created.headers.warning ?? []].flat().join("\n");
    expect(warnings).toContain("ENFORCEMENT=warn: gmsa-webhooks would deny this request: 403 ERR_CREDSPEC_NOT_ALLOWED at pod");

    const annotations = await auditAnnotationsOf("shadow");
    expect(annotations).toMatchObject({
      "authorize.gmsa-webhooks.windows.k8s.io/decision": "would-deny",
      "authorize.gmsa-webhooks.windows.k8s.io/credspecs": "webapp01",
      "authorize.gmsa-webhooks.windows.k8s.io/codes": "ERR_CREDSPEC_NOT_ALLOWED",
    });
    expect(annotations["authorize.gmsa-webhooks.windows.k8s.io/would-deny"]).toContain('403 ERR_CREDSPEC_NOT_ALLOWED at pod (credspec "webapp01")');
  });
});

interface AuditEvent {
  stage?: string;
  verb?: string;
  objectRef?: { resource?: string; name?: string; subresource?: string };
  annotations?: Record<string, string>;
}

/** The annotations of the completed create of pod `name` in the API server's audit log (written asynchronously). */
async function auditAnnotationsOf(name: string): Promise<Record<string, string>> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const events = (await readFile(cluster.auditLogFile, "utf8"))
      .split("\n")
      .filter((line) => line.includes(name))
      .map((line) => JSON.parse(line) as AuditEvent);
    const event = events.find((e) => e.stage === "ResponseComplete" && e.verb === "create" && e.objectRef?.name === name);
    if (event) return event.annotations ?? {};
    await sleep(100);
  }
  throw new Error(`no audit event for the create of pod ${name}`);
}
