/**
 * The ValidatingAdmissionPolicy of infra/deploy/policy/ on the real API server, with no webhook registered (issue 14,
 * section 6): the cases of authorize that CEL can judge. The policy is applied as shipped; the binding as
 * shipped but renamed and narrowed to this file's namespaces, so that no other test's pods meet it. `use`
 * is granted through RBAC; the credspecs need not exist for an authorization check.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  adminEndpoint,
  applyBaseInfra,
  applyObjects,
  deleteWebhooks,
  kubeRequest,
  loadManifest,
  objectPath,
  type KubeObject,
} from "../../infra/local/index.ts";
import { DEFAULT_MAX_CREDSPECS } from "../../infra/build/manifests/policy.ts";
import {
  container,
  createPod,
  deletePods,
  e2ePod,
  type Pod,
  type PodOptions,
  patchPod,
  type Status,
} from "./support/pods.ts";
import { buildPod } from "../support/pods.ts";
import { namespace, serviceAccount } from "./support/core-objects.ts";
import { binding, sa, useCredSpecs } from "../support/rbac.ts";

const cluster = inject("cluster");
const admin = adminEndpoint(cluster);
const GROUP = "policy";
const NAMESPACE = "gmsa-policy";
const OLD_LABEL = "gmsa-policy-old-opt-out";
const TEST_LABEL = "gmsa-webhooks.local/policy-e2e";
const POD_NAME = "pod.alpha.windows.kubernetes.io/gmsa-credential-spec-name";
const POD_CONTENTS = "pod.alpha.windows.kubernetes.io/gmsa-credential-spec";
const CONTAINER_CONTENTS = "app.container.alpha.windows.kubernetes.io/gmsa-credential-spec";
/** MAX_CREDSPECS_PER_POD names that `gmsa-app` may use, and one more. */
const MANY = Array.from({ length: DEFAULT_MAX_CREDSPECS + 1 }, (_, i) => `policy-${String(i).padStart(2, "0")}`);
const USABLE = ["webapp01", ...MANY.slice(0, DEFAULT_MAX_CREDSPECS)];

const pod = (name: string, options: PodOptions = {}) =>
  buildPod({ ...e2ePod(GROUP, name), serviceAccountName: "gmsa-app", ...options });

/** Creates a pod (`dryRun` unless `store`); never throws for HTTP statuses. */
const create = (body: Pod, { namespace = NAMESPACE, store = false } = {}) =>
  createPod(cluster, body, { namespace, dryRun: !store });
const patch = (name: string, body: unknown, subresource?: "ephemeralcontainers") =>
  patchPod(cluster, name, body, { subresource, namespace: NAMESPACE });

const named = (gmsaCredentialSpecName: string) => ({ gmsaCredentialSpecName });

/** The refusal a policy denial becomes: the policy's reason as the code, its message naming the credspec. */
function expectDenied(response: { status: number; body: Status }, code: number, text: string) {
  expect(response.status).toBe(code);
  expect(response.body.message).toContain("ValidatingAdmissionPolicy 'gmsa-webhooks.windows.k8s.io'");
  expect(response.body.message).toContain(text);
}

let policy: KubeObject[] = [];

beforeAll(async () => {
  await applyBaseInfra(cluster);
  // No webhook: what is refused here is refused by the policy alone.
  await deleteWebhooks(cluster);
  await applyObjects(admin, [
    namespace(NAMESPACE, { [TEST_LABEL]: "true" }),
    namespace(OLD_LABEL, { [TEST_LABEL]: "true", "windows.k8s.io/disabled": "true" }),
    // No controller manager runs: service accounts are created by hand.
    ...[NAMESPACE, OLD_LABEL].flatMap((ns) => [serviceAccount("default", ns), serviceAccount("gmsa-app", ns)]),
    useCredSpecs("e2e-policy-use", USABLE),
    binding(
      "e2e-policy-gmsa-app",
      { kind: "ClusterRole", name: "e2e-policy-use" },
      [sa("gmsa-app", NAMESPACE)],
      NAMESPACE,
    ),
  ]);
  const [shipped] = await loadManifest("policy/binding.yaml");
  policy = [
    ...(await loadManifest("policy/policy.yaml")),
    {
      ...shipped!,
      metadata: { name: "e2e-policy" },
      spec: {
        ...(shipped!.spec as object),
        matchResources: { namespaceSelector: { matchLabels: { [TEST_LABEL]: "true" } } },
      },
    },
  ];
  await applyObjects(admin, policy);
  // Policies reach the admission plugin through an informer: wait until a pod it must refuse is refused.
  for (
    let attempt = 0;
    (await create(pod("probe", { serviceAccountName: "default", windowsOptions: named("x") }))).status !== 403;
    attempt++
  ) {
    if (attempt > 100) throw new Error("the API server never applied the policy");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
});

afterAll(async () => {
  for (const object of policy.reverse()) await kubeRequest(admin, objectPath(object), { method: "DELETE" });
  await deletePods(cluster, GROUP, NAMESPACE);
});

describe("the ValidatingAdmissionPolicy (infra/deploy/policy), webhooks unregistered", () => {
  it("allows a pod whose service account may use every credspec it names, at every place", async () => {
    const created = await create(
      pod("allowed", {
        windowsOptions: named("webapp01"),
        containers: [container("app", named("webapp01")), container("other", named("policy-00"))],
        initContainers: [container("setup", named("policy-01"))],
        annotations: {
          [POD_NAME]: "webapp01",
          "app.container.alpha.windows.kubernetes.io/gmsa-credential-spec-name": "policy-02",
        },
      }),
    );
    expect(created.status).toBe(201);
  });

  it.each([
    ["pod", { windowsOptions: named("webapp02") }],
    ["container", { containers: [container("app", named("webapp01")), container("other", named("webapp02"))] }],
    ["init container", { initContainers: [container("setup", named("webapp02"))] }],
    ["pod annotation", { annotations: { [POD_NAME]: "webapp02" } }],
    [
      "container annotation",
      { annotations: { "app.container.alpha.windows.kubernetes.io/gmsa-credential-spec-name": "webapp02" } },
    ],
  ] as [string, PodOptions][])(
    "refuses a credspec the service account may not use, named by the %s (403)",
    async (_place, options) => {
      const created = await create(pod("refused", options));
      expectDenied(created, 403, 'service account "gmsa-app" may not use GMSACredentialSpec "webapp02"');
    },
  );

  it('reviews an empty serviceAccountName as "default" (403)', async () => {
    const created = await create(pod("default-account", { serviceAccountName: "", windowsOptions: named("webapp01") }));
    expectDenied(created, 403, 'service account "default" may not use GMSACredentialSpec "webapp01"');
  });

  it("checks an ephemeral container added through pods/ephemeralcontainers like a create", async () => {
    expect((await create(pod("debug"), { store: true })).status).toBe(201);
    const ephemeral = (name: string, credspec: string) => ({
      spec: { ephemeralContainers: [{ name, image: "x", securityContext: { windowsOptions: named(credspec) } }] },
    });
    expectDenied(await patch("debug", ephemeral("refused", "webapp02"), "ephemeralcontainers"), 403, '"webapp02"');
    expect((await patch("debug", ephemeral("allowed", "webapp01"), "ephemeralcontainers")).status).toBe(200);
    // The one added before is unchanged; only the new one is checked.
    expect((await patch("debug", ephemeral("second", "policy-03"), "ephemeralcontainers")).status).toBe(200);
  });

  describe("update", () => {
    beforeAll(async () => {
      const created = await create(
        pod("update", {
          windowsOptions: named("webapp01"),
          annotations: { [POD_NAME]: "webapp01", [POD_CONTENTS]: "{}" },
        }),
        { store: true },
      );
      expect(created.status).toBe(201);
    });

    it.each([
      ["a changed GMSA name", POD_NAME, "policy-00", `GMSA settings cannot change on update: annotation "${POD_NAME}"`],
      ["changed contents", POD_CONTENTS, '{"a":1}', `annotation "${POD_CONTENTS}"`],
      ["removed contents", POD_CONTENTS, null, `annotation "${POD_CONTENTS}"`],
      ["added contents", CONTAINER_CONTENTS, "{}", `annotation "${CONTAINER_CONTENTS}"`],
    ])("refuses %s (422), naming the place", async (_, key, value, text) => {
      expectDenied(await patch("update", { metadata: { annotations: { [key]: value } } }), 422, text);
    });

    it("allows an update that leaves GMSA settings alone, without a new authorization check", async () => {
      // Revoking `use` does not break later updates of running pods, as with the webhook.
      const patched = await patch("update", {
        metadata: { labels: { touched: "yes" }, annotations: { "example.com/other": "x" } },
      });
      expect(patched.status).toBe(200);
    });
  });

  it(`allows ${DEFAULT_MAX_CREDSPECS} distinct usable names (MAX_CREDSPECS_PER_POD) within the CEL cost budget`, async () => {
    const names = MANY.slice(0, DEFAULT_MAX_CREDSPECS);
    const containers = names.map((name, i) => container(`c${i}`, named(name)));
    // Repeats cost no check of their own.
    const created = await create(
      pod("many", {
        windowsOptions: named(names[0]!),
        containers,
        initContainers: [container("setup", named(names[15]!))],
      }),
    );
    expect(created.status).toBe(201);
  });

  it("refuses the one unusable name among the maximum, wherever it sorts", async () => {
    for (const unusable of ["aaa-first", "zzz-last"]) {
      const names = [...MANY.slice(0, DEFAULT_MAX_CREDSPECS - 1), unusable];
      const created = await create(
        pod("many-refused", { containers: names.map((name, i) => container(`c${i}`, named(name))) }),
      );
      expectDenied(created, 403, `"${unusable}"`);
    }
  });

  it(`refuses more than ${DEFAULT_MAX_CREDSPECS} distinct names (422), even when all are usable`, async () => {
    const containers = [...MANY.slice(0, DEFAULT_MAX_CREDSPECS), "webapp01"].map((name, i) =>
      container(`c${i}`, named(name)),
    );
    expectDenied(await create(pod("too-many", { containers })), 422, `more than ${DEFAULT_MAX_CREDSPECS} distinct`);
  });

  it('judges a namespace labelled windows.k8s.io/disabled: "true", which any namespace creator can set (403)', async () => {
    const created = await create(pod("old-label", { windowsOptions: named("webapp02") }), { namespace: OLD_LABEL });
    expectDenied(created, 403, 'service account "gmsa-app" may not use GMSACredentialSpec "webapp02"');
  });
});
