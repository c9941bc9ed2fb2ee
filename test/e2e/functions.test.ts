/**
 * Both functions, called by the real kube-apiserver through the webhook configurations of
 * infra/deploy/webhooks/, for the Node server and for the Worker build: pods are created with the admin
 * credential and the tests read what the API server stored or why it refused. Pods stay Pending
 * (no kubelet). The functions run as deployed: one process or Worker each, their own identity, the
 * API server's bearer token (infra/local/stack.ts).
 */
import { beforeAll, describe, expect, inject, it, onTestFinished, vi } from "vitest";
import {
  adminEndpoint,
  applyBaseInfra,
  applyObjects,
  kubeRequest,
  objectPath,
  type KubeObject,
} from "../../infra/local/index.ts";
import { buildLocalSubjectAccessReview } from "../../shared/kube/access-reviews.ts";
import { FUNCTION_NAMES } from "../../shared/config/index.ts";
import { sumOf } from "../support/prometheus.ts";
import {
  container,
  createPod,
  e2ePod,
  getPod,
  parsed,
  patchPod,
  type PodOptions,
  readCredSpec,
  reviewCounts,
  useRegisteredFunctions,
  type WindowsOptions,
} from "./support/pods.ts";
import { buildPod } from "../support/pods.ts";
import { binding, sa, useCredSpecs } from "../support/rbac.ts";

const cluster = inject("cluster");
const POD_NAME = "pod.alpha.windows.kubernetes.io/gmsa-credential-spec-name";
const POD_CONTENTS = "pod.alpha.windows.kubernetes.io/gmsa-credential-spec";

let webapp01: unknown;
let webapp03: unknown;

/** RBAC that lets the default namespace's gmsa-app service account `use` the credspec `name`. */
function gmsaAppMayUse(name: string): KubeObject[] {
  const roleRef = { kind: "ClusterRole", name: `e2e-use-${name}` } as const;
  return [
    useCredSpecs(roleRef.name, [name]),
    binding(`e2e-gmsa-app-uses-${name}`, roleRef, [sa("gmsa-app", "default")], "default"),
  ];
}

beforeAll(async () => {
  await applyBaseInfra(cluster);
  // A second credspec for gmsa-app, so that one pod can carry two different ones.
  await applyObjects(adminEndpoint(cluster), gmsaAppMayUse("webapp03-ccg"));
  [webapp01, webapp03] = await Promise.all(["webapp01", "webapp03-ccg"].map((n) => readCredSpec(cluster, n)));
});

describe.each(["node", "worker"] as const)("functions on the %s runtime, called by kube-apiserver", (runtime) => {
  const group = `functions-${runtime}`;
  const pod = (name: string, options: PodOptions = {}) =>
    buildPod({ ...e2ePod(group, `${runtime}-${name}`), serviceAccountName: "gmsa-app", ...options });
  const functions = useRegisteredFunctions(cluster, { runtime }, group);

  it.each(FUNCTION_NAMES)(
    "%s answers /readyz 200 (its identity is accepted and has the RBAC it needs), and 401 to a caller without the API server's bearer token",
    async (fn) => {
      const server = functions()[`${fn}BaseUrl`];
      const ready = await kubeRequest({ server, caPem: cluster.caPem }, "/readyz");
      expect({ status: ready.status, body: ready.body }).toEqual({ status: 200, body: "ok" });
      const caller = { server, caPem: cluster.caPem, token: "not-the-token" };
      expect((await kubeRequest(caller, `/${fn}`, { method: "POST", body: {} })).status).toBe(401);
    },
  );

  describe("create", () => {
    // `expected`: the credspec each place (the pod, or a container by name) must carry inlined; the others carry none.
    // Each place alone: test/unit/rules/cases.ts; here, the patch of every kind of place as the API server stores it.
    it.each([
      [
        "several",
        "the pod and each container, each its own",
        {
          windowsOptions: { gmsaCredentialSpecName: "webapp01" },
          containers: [container("web"), container("ccg", { gmsaCredentialSpecName: "webapp03-ccg" })],
          initContainers: [container("setup", { gmsaCredentialSpecName: "webapp01" })],
        },
        { pod: "webapp01", ccg: "webapp03-ccg", setup: "webapp01" },
      ],
      [
        "host-process",
        "a HostProcess pod",
        {
          windowsOptions: {
            hostProcess: true,
            runAsUserName: "NT AUTHORITY\\SYSTEM",
            gmsaCredentialSpecName: "webapp01",
          },
          spec: { hostNetwork: true },
        },
        { pod: "webapp01" },
      ],
    ] as [string, string, PodOptions, Record<string, string>][])(
      "inlines the credspec named by %s: %s",
      async (name, _, options, expected) => {
        expect((await createPod(cluster, pod(name, options))).status).toBe(201);
        const spec = (await getPod(cluster, `${runtime}-${name}`)).body.spec!;
        const contents: Record<string, unknown> = { webapp01, "webapp03-ccg": webapp03 };
        const containers = [...(spec.containers ?? []), ...(spec.initContainers ?? [])];
        const places: [string, { windowsOptions?: WindowsOptions } | undefined][] = [
          ["pod", spec.securityContext],
          ...containers.map((c): [string, typeof c.securityContext] => [c.name, c.securityContext]),
        ];
        for (const [place, context] of places) {
          const credspec = expected[place];
          if (credspec === undefined) expect(context?.windowsOptions, place).toBeUndefined();
          else expect(parsed(context?.windowsOptions?.gmsaCredentialSpec), place).toEqual(contents[credspec]);
        }
        expect(spec.securityContext?.windowsOptions?.hostProcess).toBe(options.windowsOptions?.hostProcess);
      },
    );

    // Each rule's refusals are cases of test/unit/rules/cases.ts; here, one of each function as the API server relays it.
    it.each([
      [
        "a credspec that does not exist (422), named by expand",
        { containers: [container("app", { gmsaCredentialSpecName: "no-such-credspec" })] },
        422,
        /container "app".*"no-such-credspec"|"no-such-credspec".*container "app"/,
      ],
      [
        "a service account that may not use the credspec (403), named by authorize",
        { serviceAccountName: "default", windowsOptions: { gmsaCredentialSpecName: "webapp01" } },
        403,
        /service account "default".*"webapp01"/,
      ],
    ] as [string, PodOptions, number, RegExp][])("refuses %s and stores nothing", async (_, options, code, says) => {
      const name = `refused-${code}`;
      const created = await createPod(cluster, pod(name, options));
      expect(created.status, created.body.message).toBe(code);
      expect(created.body.message).toMatch(says);
      expect((await getPod(cluster, `${runtime}-${name}`)).status).toBe(404);
    });

    // At the container level too: test/unit/rules/cases.ts ("expand fills the contents annotation and sets the fields").
    it("turns the pod-level alpha annotation into fields and fills the contents annotation", async () => {
      const created = await createPod(cluster, pod("annotation-pod", { annotations: { [POD_NAME]: "webapp01" } }));
      expect(created.status).toBe(201);
      const spec = created.body.spec!;
      const options = spec.securityContext?.windowsOptions;
      expect(options?.gmsaCredentialSpecName).toBe("webapp01");
      expect(parsed(options?.gmsaCredentialSpec)).toEqual(webapp01);
      expect(parsed(created.body.metadata?.annotations?.[POD_CONTENTS])).toEqual(webapp01);
      expect(spec.containers?.[0]?.securityContext?.windowsOptions).toBeUndefined();
    });
  });

  describe("update", () => {
    it("allows an unrelated update (a label) of a GMSA pod, reviewed by both functions", async () => {
      expect(
        (await createPod(cluster, pod("relabel", { windowsOptions: { gmsaCredentialSpecName: "webapp01" } }))).status,
      ).toBe(201);
      const before = await reviewCounts(functions());
      const patched = await patchPod(cluster, `${runtime}-relabel`, { metadata: { labels: { touched: "yes" } } });
      expect(patched.status).toBe(200);
      expect(patched.body.metadata?.labels).toMatchObject({ touched: "yes" });
      expect(await reviewCounts(functions())).toEqual({ expand: before.expand + 1, authorize: before.authorize + 1 });
    });

    it.each([
      ["refuses", "webapp02", "a credspec the service account may not use (403)", 403],
      ["expands", "webapp01", "an allowed credspec", 200],
    ] as const)(
      "%s an ephemeral container added through pods/ephemeralcontainers naming %s: %s",
      async (verb, credspec, _, status) => {
        const name = `debug-${verb}`;
        expect((await createPod(cluster, pod(name))).status).toBe(201);
        const debug = container("debug", { gmsaCredentialSpecName: credspec });
        const body = { spec: { ephemeralContainers: [debug] } };
        const patched = await patchPod(cluster, `${runtime}-${name}`, body, { subresource: "ephemeralcontainers" });
        expect(patched.status).toBe(status);
        if (status === 403) expect(patched.body.message).toContain('ephemeral container "debug"');
        const stored = (await getPod(cluster, `${runtime}-${name}`)).body.spec?.ephemeralContainers?.[0];
        expect(parsed(stored?.securityContext?.windowsOptions?.gmsaCredentialSpec)).toEqual(
          status === 200 ? webapp01 : undefined,
        );
      },
    );
  });

  // Counted through Prometheus /metrics, the Node server's alone; the client that shares the call is the Worker's too.
  if (runtime === "node")
    it("makes one API call for the reviews in flight that miss the same credspec", async () => {
      const name = "e2e-burst";
      const objects: KubeObject[] = [
        { apiVersion: "windows.k8s.io/v1", kind: "GMSACredentialSpec", metadata: { name }, credspec: webapp01 },
        ...gmsaAppMayUse(name),
      ];
      const admin = adminEndpoint(cluster);
      await applyObjects(admin, objects);
      // Other files on this cluster list the credspecs: leave none behind.
      onTestFinished(async () => {
        for (const object of objects) await kubeRequest(admin, objectPath(object), { method: "DELETE" });
      });
      // The API server's RBAC authorizer learns of the binding from its informers: wait until it allows, so that the
      // burst's one access review is allowed (and cached) rather than denied.
      const review = buildLocalSubjectAccessReview({
        namespace: "default",
        serviceAccount: "gmsa-app",
        credSpecName: name,
      });
      const sarPath = "/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews";
      const allowed = async () =>
        (await kubeRequest<{ status?: { allowed?: boolean } }>(admin, sarPath, { method: "POST", body: review })).body;
      await vi.waitFor(async () => expect((await allowed()).status?.allowed).toBe(true), {
        timeout: 5_000,
        interval: 100,
      });
      const calls = async () => {
        const [expand = [], authorize = []] = await Promise.all(FUNCTION_NAMES.map((fn) => functions().scrape(fn)));
        return {
          reads: sumOf(expand, "gmsa_webhooks_kube_requests_total", { verb: "get", resource: "gmsacredentialspecs" }),
          reviews: sumOf(authorize, "gmsa_webhooks_kube_requests_total", {
            verb: "create",
            resource: "localsubjectaccessreviews",
          }),
        };
      };
      const before = await calls();
      const creates = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          createPod(cluster, pod(`burst-${i}`, { windowsOptions: { gmsaCredentialSpecName: name } }), { dryRun: true }),
        ),
      );
      for (const created of creates) {
        expect(created.status).toBe(201);
        expect(parsed(created.body.spec?.securityContext?.windowsOptions?.gmsaCredentialSpec)).toEqual(webapp01);
      }
      expect(await calls()).toEqual({ reads: before.reads + 1, reviews: before.reviews + 1 });
    });

  // Prometheus /metrics is the Node server's alone (Workers report through their log line): registered, not skipped.
  if (runtime === "node")
    it("counts in /metrics the reviews the API server sent and the API calls they made", async () => {
      const [expand = [], authorize = []] = await Promise.all(FUNCTION_NAMES.map((fn) => functions().scrape(fn)));
      const counters: [typeof expand, string, Record<string, string>][] = [
        [
          expand,
          "gmsa_webhooks_reviews_total",
          { function: "expand", operation: "CREATE", decision: "allowed", code: "200" },
        ],
        [expand, "gmsa_webhooks_kube_requests_total", { verb: "get", resource: "gmsacredentialspecs", code: "200" }],
        [
          authorize,
          "gmsa_webhooks_kube_requests_total",
          { verb: "create", resource: "localsubjectaccessreviews", code: "201" },
        ],
        [authorize, "gmsa_webhooks_reviews_total", { function: "authorize", decision: "denied", code: "403" }],
        // The functions authenticate with the exec plugin, which minted their tokens.
        [expand, "gmsa_webhooks_token_refreshes_total", { source: "exec", outcome: "success" }],
      ];
      for (const [samples, name, labels] of counters)
        expect(sumOf(samples, name, labels), `${name} ${JSON.stringify(labels)}`).toBeGreaterThan(0);
    });
});
