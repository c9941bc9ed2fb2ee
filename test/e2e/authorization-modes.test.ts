/**
 * REVIEW_REQUESTING_USER and ENFORCEMENT through the real API server and the Node functions (issue 14, sections
 * 1 and 5). Each setting needs its own functions stack: one is started per describe block, and the webhooks are
 * registered for it. What each mode decides (`always` as `ephemeral` here): test/unit/rules/cases.ts.
 */
import { readFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import {
  adminEndpoint,
  applyBaseInfra,
  applyObjects,
  deleteWebhooks,
  kubeRequest,
  type FunctionsStack,
} from "../../infra/local/index.ts";
import { gmsaPod } from "./support/install-checks.ts";
import {
  container,
  createPod,
  deletePods,
  type Pod,
  PODS,
  startRegisteredFunctions,
  type Status,
} from "./support/pods.ts";
import { binding, role, user } from "../support/rbac.ts";

const cluster = inject("cluster");
const admin = adminEndpoint(cluster);
const GROUP = "authorization-modes";
/** May add ephemeral containers to pods in `default`, and nothing about credspecs. */
const DEBUGGER = "debugger@example.com";

/** May add ephemeral containers to pods in `default`, and `use` webapp01. */
const GMSA_DEBUGGER = "gmsa-debugger@example.com";

/**
 * Adds ephemeral container "debug" without windowsOptions to `pod` as `user` (impersonated by the admin): it runs
 * under the pod-level GMSA, which the kubelet applies to every container.
 */
function debugAs(user: string, pod: string) {
  return kubeRequest<Pod & Status>(admin, `${PODS}/${pod}/ephemeralcontainers`, {
    method: "PATCH",
    contentType: "application/strategic-merge-patch+json",
    body: { spec: { ephemeralContainers: [container("debug")] } },
    headers: { "Impersonate-User": user, "Impersonate-Group": "system:authenticated" },
  });
}

let stack: FunctionsStack | undefined;

async function restartFunctions(env: Record<string, string>): Promise<void> {
  await stack?.stop();
  stack = await startRegisteredFunctions(cluster, { env });
}

beforeAll(async () => {
  await applyBaseInfra(cluster);
  const rules = [
    { apiGroups: [""], resources: ["pods"], verbs: ["get"] },
    { apiGroups: [""], resources: ["pods/ephemeralcontainers"], verbs: ["update", "patch"] },
  ];
  await applyObjects(admin, [
    role("ephemeral-debugger", rules, "default"),
    binding(
      "ephemeral-debugger",
      { kind: "Role", name: "ephemeral-debugger" },
      [user(DEBUGGER), user(GMSA_DEBUGGER)],
      "default",
    ),
    binding(
      "gmsa-debugger-uses-webapp01",
      { kind: "ClusterRole", name: "gmsa-use-webapp01" },
      [user(GMSA_DEBUGGER)],
      "default",
    ),
  ]);
});

afterEach(async () => {
  await deletePods(cluster, GROUP);
});

afterAll(async () => {
  await deleteWebhooks(cluster);
  await stack?.stop();
});

describe("REVIEW_REQUESTING_USER=ephemeral: an ephemeral container inheriting the pod-level GMSA", () => {
  beforeAll(async () => {
    await restartFunctions({ REVIEW_REQUESTING_USER: "ephemeral" });
  });

  it.each([
    ["refused to a user without `use` of the pod's credspec (403), naming the user and the credspec", DEBUGGER, 403],
    ["allowed to a user with `use` of it", GMSA_DEBUGGER, 200],
  ] as const)("is %s", async (_, user, status) => {
    // The pod's service account (`gmsa-app`) may use webapp01, named at the pod level.
    const name = `inherit-${status === 403 ? "refused" : "allowed"}`;
    expect((await createPod(cluster, gmsaPod(GROUP, name, "gmsa-app"))).status).toBe(201);
    const debugged = await debugAs(user, name);
    expect(debugged.status).toBe(status);
    if (status === 403)
      expect(debugged.body.message).toContain(
        `ephemeral container "debug" (pod-level GMSA): user "${DEBUGGER}" is not allowed to use GMSACredentialSpec "webapp01"`,
      );
    else expect(debugged.body.spec?.ephemeralContainers?.map((c) => c.name)).toEqual(["debug"]);
    expect(await auditAnnotationsOf(name, "ephemeralcontainers")).toMatchObject({
      "authorize.gmsa-webhooks.windows.k8s.io/decision": status === 403 ? "denied" : "allowed",
      "authorize.gmsa-webhooks.windows.k8s.io/credspecs": "webapp01",
    });
  });
});

describe("ENFORCEMENT=warn", () => {
  it("creates a pod authorize would deny, with the denial as a Warning header and an audit annotation", async () => {
    await restartFunctions({ ENFORCEMENT: "warn" });
    // `default` may use no credspec (infra/deploy/samples/rbac.yaml): in deny mode this is a 403. The pod's name is
    // its own in the shared cluster's audit log, which the files running beside this one write to as well.
    const created = await createPod(cluster, gmsaPod(GROUP, "warn-would-deny", "default"));
    expect(created.status).toBe(201);
    const warnings = [created.headers.warning ?? []].flat().join("\n");
    expect(warnings).toContain(
      "ENFORCEMENT=warn: gmsa-webhooks would deny this request: 403 ERR_CREDSPEC_NOT_ALLOWED at pod",
    );

    const annotations = await auditAnnotationsOf("warn-would-deny");
    expect(annotations).toMatchObject({
      "authorize.gmsa-webhooks.windows.k8s.io/decision": "would-deny",
      "authorize.gmsa-webhooks.windows.k8s.io/credspecs": "webapp01",
      "authorize.gmsa-webhooks.windows.k8s.io/codes": "ERR_CREDSPEC_NOT_ALLOWED",
    });
    expect(annotations["authorize.gmsa-webhooks.windows.k8s.io/would-deny"]).toContain(
      '403 ERR_CREDSPEC_NOT_ALLOWED at pod (credspec "webapp01")',
    );
  });
});

interface AuditEvent {
  stage?: string;
  verb?: string;
  objectRef?: { resource?: string; name?: string; subresource?: string };
  annotations?: Record<string, string>;
}

/**
 * The annotations of the completed create of pod `name` (or of the request to its `subresource`) in the API
 * server's audit log (written asynchronously).
 */
async function auditAnnotationsOf(name: string, subresource?: string): Promise<Record<string, string>> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const events = (await readFile(cluster.auditLogFile, "utf8"))
      .split("\n")
      .filter((line) => line.includes(name))
      .map((line) => JSON.parse(line) as AuditEvent);
    const event = events.find(
      (e) =>
        e.stage === "ResponseComplete" &&
        e.objectRef?.name === name &&
        (subresource === undefined ? e.verb === "create" : e.objectRef.subresource === subresource),
    );
    if (event) return event.annotations ?? {};
    await sleep(100);
  }
  throw new Error(`no audit event for the ${subresource ?? "create"} of pod ${name}`);
}
