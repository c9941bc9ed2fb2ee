/**
 * exec and attach under REVIEW_REQUESTING_USER through the real API server (issue 37, L5): admission runs before the
 * API server reaches a kubelet, so a refusal is the webhook's 403, and a request allowed past admission fails after it,
 * on the pod having no node (these pods are never scheduled). The user is impersonated by the admin.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  adminEndpoint,
  applyBaseInfra,
  applyObjects,
  deleteWebhooks,
  kubeRequest,
  type FunctionsStack,
} from "../../infra/local/index.ts";
import { gmsaPod } from "./support/install-checks.ts";
import { createPod, deletePods, e2ePod, PODS, startRegisteredFunctions, type Status } from "./support/pods.ts";
import { binding, role, user } from "../support/rbac.ts";
import { buildPod } from "../support/pods.ts";

const cluster = inject("cluster");
const admin = adminEndpoint(cluster);
const GROUP = "exec-attach";
/** May exec into and attach to pods in `default`, and nothing about credspecs. */
const OPERATOR = "operator@example.com";
/** The same, and may `use` webapp01. */
const GMSA_OPERATOR = "gmsa-operator@example.com";
/** What the API server answers a CONNECT that passed admission, for a pod without a node. */
const PAST_ADMISSION = /does not have a host assigned/;

async function connectAs(
  user: string,
  pod: string,
  subResource: "exec" | "attach",
): Promise<{ status: number; body: Status }> {
  const query = subResource === "exec" ? "command=cmd&stdout=true" : "stdout=true";
  const { status, body } = await kubeRequest<Status>(admin, `${PODS}/${pod}/${subResource}?${query}`, {
    method: "POST",
    headers: { "Impersonate-User": user, "Impersonate-Group": "system:authenticated" },
  });
  return { status, body };
}

let stack: FunctionsStack | undefined;

beforeAll(async () => {
  await applyBaseInfra(cluster);
  await applyObjects(admin, [
    role(
      "exec-operator",
      [{ apiGroups: [""], resources: ["pods/exec", "pods/attach"], verbs: ["create", "get"] }],
      "default",
    ),
    binding("exec-operator", { kind: "Role", name: "exec-operator" }, [user(OPERATOR), user(GMSA_OPERATOR)], "default"),
    binding(
      "gmsa-operator-uses-webapp01",
      { kind: "ClusterRole", name: "gmsa-use-webapp01" },
      [user(GMSA_OPERATOR)],
      "default",
    ),
  ]);
  // A pod whose service account may use webapp01, named at the pod level, and one without any GMSA setting.
  expect((await createPod(cluster, gmsaPod(GROUP, "gmsa", "gmsa-app"))).status).toBe(201);
  expect((await createPod(cluster, buildPod(e2ePod(GROUP, "plain")))).status).toBe(201);
});

afterAll(async () => {
  await deletePods(cluster, GROUP);
  await deleteWebhooks(cluster);
  await stack?.stop();
});

describe.each(["exec", "attach"] as const)("REVIEW_REQUESTING_USER=ephemeral: pods/%s", (subResource) => {
  beforeAll(async () => {
    stack ??= await startRegisteredFunctions(cluster, { env: { REVIEW_REQUESTING_USER: "ephemeral" } });
  });

  it("is refused into a GMSA pod to a user without `use` of its credspec (403), naming the user and the credspec", async () => {
    const refused = await connectAs(OPERATOR, "gmsa", subResource);
    expect(refused.body.message).toContain(
      `pods/${subResource} into pod: user "${OPERATOR}" is not allowed to use GMSACredentialSpec "webapp01"`,
    );
    expect(refused.status).toBe(403);
  });

  it.each([
    ["a user with `use`", GMSA_OPERATOR, "gmsa"],
    ["a pod without GMSA settings", OPERATOR, "plain"],
  ])("lets %s past admission", async (_, user, pod) => {
    const allowed = await connectAs(user, pod, subResource);
    expect(allowed.body.message).not.toContain("admission webhook");
    expect(allowed.body.message).toMatch(PAST_ADMISSION);
  });
});

describe("while authorize is down", () => {
  it("refuses an exec to a user (fail closed) but sends none of system:masters, whom every access review allows", async () => {
    await stack?.stop();
    stack = undefined;
    const user = await connectAs(OPERATOR, "plain", "exec");
    expect(user.body.message).toContain('failed calling webhook "authorize.gmsa-webhooks.windows.k8s.io"');
    const { body } = await kubeRequest<Status>(admin, `${PODS}/gmsa/exec?command=cmd&stdout=true`, { method: "POST" });
    expect(body.message).toMatch(PAST_ADMISSION);
  });
});
