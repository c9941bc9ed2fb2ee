/**
 * Both functions, called by the real kube-apiserver through the webhook configurations of
 * infra/deploy/webhooks/, for the Node server and for the Worker build: pods are created with the admin
 * credential and the tests read what the API server stored or why it refused. Pods stay Pending
 * (no kubelet). The functions run as deployed: one process or Worker each, their own identity, the
 * API server's bearer token (infra/local/stack.ts).
 */
import { afterAll, beforeAll, describe, expect, inject, it, onTestFinished } from "vitest";
import {
  adminEndpoint,
  applyBaseInfra,
  applyFunctionsWebhooks,
  applyObjects,
  deleteWebhooks,
  kubeRequest,
  objectPath,
  startFunctions,
  type FunctionsStack,
  type KubeObject,
} from "../../infra/local/index.ts";
import { buildLocalSubjectAccessReview } from "../../shared/kube/access-reviews.ts";
import { sumOf } from "../support/prometheus.ts";
import {
  container,
  createPod,
  deletePods,
  e2ePod,
  getPod,
  parsed,
  patchPod,
  type PodOptions,
  readCredSpec,
} from "./support/pods.ts";
import { buildPod } from "../support/pods.ts";

const cluster = inject("cluster");
const POD_NAME = "pod.alpha.windows.kubernetes.io/gmsa-credential-spec-name";
const POD_CONTENTS = "pod.alpha.windows.kubernetes.io/gmsa-credential-spec";
const APP_NAME = "app.container.alpha.windows.kubernetes.io/gmsa-credential-spec-name";
const APP_CONTENTS = "app.container.alpha.windows.kubernetes.io/gmsa-credential-spec";

let webapp01: unknown;
let webapp02: unknown;
let webapp03: unknown;

/** RBAC that lets the default namespace's gmsa-app service account `use` the credspec `name`. */
function gmsaAppMayUse(name: string): KubeObject[] {
  return [
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: `e2e-use-${name}` },
      rules: [
        { apiGroups: ["windows.k8s.io"], resources: ["gmsacredentialspecs"], verbs: ["use"], resourceNames: [name] },
      ],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name: `e2e-gmsa-app-uses-${name}`, namespace: "default" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: `e2e-use-${name}` },
      subjects: [{ kind: "ServiceAccount", name: "gmsa-app", namespace: "default" }],
    },
  ];
}

beforeAll(async () => {
  await applyBaseInfra(cluster);
  // A second credspec for gmsa-app, so that one pod can carry two different ones.
  await applyObjects(adminEndpoint(cluster), gmsaAppMayUse("webapp03-ccg"));
  [webapp01, webapp02, webapp03] = await Promise.all(
    ["webapp01", "webapp02", "webapp03-ccg"].map((n) => readCredSpec(cluster, n)),
  );
});

describe.each(["node", "worker"] as const)("functions on the %s runtime, called by kube-apiserver", (runtime) => {
  let stack: FunctionsStack;
  const group = `functions-${runtime}`;
  const pod = (name: string, options: PodOptions = {}) =>
    buildPod({ ...e2ePod(group, `${runtime}-${name}`), serviceAccountName: "gmsa-app", ...options });
  const reviewCounts = async () => {
    const [expand, authorize] = await Promise.all([stack.metrics("expand"), stack.metrics("authorize")]);
    return { expand: expand["expand_reviews_total"] ?? 0, authorize: authorize["authorize_reviews_total"] ?? 0 };
  };

  beforeAll(async () => {
    stack = await startFunctions(cluster, { runtime, dir: cluster.dir });
    await applyFunctionsWebhooks(cluster, stack);
  });

  afterAll(async () => {
    await deleteWebhooks(cluster);
    await deletePods(cluster, group);
    await stack?.stop();
  });

  it("answers /readyz 200: each function's identity is accepted and has the RBAC it needs", async () => {
    for (const base of [stack.expandBaseUrl, stack.authorizeBaseUrl]) {
      const response = await kubeRequest({ server: base, caPem: cluster.caPem }, "/readyz");
      expect({ status: response.status, body: response.body }).toEqual({ status: 200, body: "ok" });
    }
  });

  it("answers 401 to a caller without the API server's bearer token", async () => {
    for (const base of [stack.expandBaseUrl, stack.authorizeBaseUrl]) {
      const path = base === stack.expandBaseUrl ? "/expand" : "/authorize";
      const response = await kubeRequest({ server: base, caPem: cluster.caPem, token: "not-the-token" }, path, {
        method: "POST",
        body: {},
      });
      expect(response.status).toBe(401);
    }
  });

  describe("create", () => {
    it("inlines the credspec named at pod level into the stored pod", async () => {
      const created = await createPod(
        cluster,
        pod("pod-level", { windowsOptions: { gmsaCredentialSpecName: "webapp01" } }),
      );
      expect(created.status).toBe(201);
      const stored = await getPod(cluster, `${runtime}-pod-level`);
      const options = stored.body.spec?.securityContext?.windowsOptions;
      expect(options?.gmsaCredentialSpecName).toBe("webapp01");
      expect(parsed(options?.gmsaCredentialSpec)).toEqual(webapp01);
    });

    it("inlines a container's own credspec into that container only", async () => {
      const created = await createPod(
        cluster,
        pod("container-level", { containers: [container("app", { gmsaCredentialSpecName: "webapp01" })] }),
      );
      expect(created.status).toBe(201);
      expect(created.body.spec?.securityContext?.windowsOptions).toBeUndefined();
      expect(parsed(created.body.spec?.containers?.[0]?.securityContext?.windowsOptions?.gmsaCredentialSpec)).toEqual(
        webapp01,
      );
    });

    it("inlines an init container's credspec", async () => {
      const created = await createPod(
        cluster,
        pod("init", { initContainers: [container("setup", { gmsaCredentialSpecName: "webapp01" })] }),
      );
      expect(created.status).toBe(201);
      expect(
        parsed(created.body.spec?.initContainers?.[0]?.securityContext?.windowsOptions?.gmsaCredentialSpec),
      ).toEqual(webapp01);
    });

    it("gives the pod and each container naming a credspec its own contents", async () => {
      const created = await createPod(
        cluster,
        pod("several", {
          windowsOptions: { gmsaCredentialSpecName: "webapp01" },
          containers: [container("web"), container("ccg", { gmsaCredentialSpecName: "webapp03-ccg" })],
          initContainers: [container("setup", { gmsaCredentialSpecName: "webapp01" })],
        }),
      );
      expect(created.status).toBe(201);
      const spec = created.body.spec!;
      expect(parsed(spec.securityContext?.windowsOptions?.gmsaCredentialSpec)).toEqual(webapp01);
      expect(spec.containers?.[0]?.securityContext).toBeUndefined();
      expect(parsed(spec.containers?.[1]?.securityContext?.windowsOptions?.gmsaCredentialSpec)).toEqual(webapp03);
      expect(parsed(spec.initContainers?.[0]?.securityContext?.windowsOptions?.gmsaCredentialSpec)).toEqual(webapp01);
    });

    it("refuses a credspec that does not exist (422) and names it", async () => {
      const created = await createPod(
        cluster,
        pod("unknown", { containers: [container("app", { gmsaCredentialSpecName: "no-such-credspec" })] }),
      );
      expect(created.status).toBe(422);
      expect(created.body.message).toContain('"no-such-credspec"');
      expect(created.body.message).toContain('container "app"');
      expect((await getPod(cluster, `${runtime}-unknown`)).status).toBe(404);
    });

    it("refuses a service account that may not use the credspec (403)", async () => {
      const unbound = await createPod(
        cluster,
        pod("unbound", { serviceAccountName: "default", windowsOptions: { gmsaCredentialSpecName: "webapp01" } }),
      );
      expect(unbound.status).toBe(403);
      expect(unbound.body.message).toMatch(/service account "default".*"webapp01"/);
      const other = await createPod(
        cluster,
        pod("other-credspec", { containers: [container("app", { gmsaCredentialSpecName: "webapp02" })] }),
      );
      expect(other.status).toBe(403);
      expect(other.body.message).toContain('"webapp02"');
    });

    it("allows preset contents equal to the named credspec and keeps them as written", async () => {
      // Same JSON value, other key order and spacing: equality is of the value, not the bytes.
      const preset = JSON.stringify(
        JSON.parse(JSON.stringify(webapp01), (_key, value: unknown) =>
          value !== null && typeof value === "object" && !Array.isArray(value)
            ? Object.fromEntries(Object.entries(value).reverse())
            : value,
        ),
        null,
        1,
      );
      const created = await createPod(
        cluster,
        pod("preset", { windowsOptions: { gmsaCredentialSpecName: "webapp01", gmsaCredentialSpec: preset } }),
      );
      expect(created.status).toBe(201);
      expect(created.body.spec?.securityContext?.windowsOptions?.gmsaCredentialSpec).toBe(preset);
    });

    it("refuses preset contents that differ from the named credspec (422)", async () => {
      const created = await createPod(
        cluster,
        pod("mismatch", {
          windowsOptions: { gmsaCredentialSpecName: "webapp01", gmsaCredentialSpec: JSON.stringify(webapp02) },
        }),
      );
      expect(created.status).toBe(422);
      expect(created.body.message).toContain('"webapp01"');
    });

    it("refuses preset contents that repeat a key (422), naming the place and the key path", async () => {
      // JSON.parse keeps the last copy, so this compares equal to webapp01 while the node would read both.
      const smuggled = `{"ActiveDirectoryConfig":${JSON.stringify((webapp02 as Record<string, unknown>)["ActiveDirectoryConfig"])},${JSON.stringify(webapp01).slice(1)}`;
      const created = await createPod(
        cluster,
        pod("repeated-key", {
          containers: [container("app", { gmsaCredentialSpecName: "webapp01", gmsaCredentialSpec: smuggled })],
        }),
      );
      expect(created.status).toBe(422);
      expect(created.body.message).toContain('container "app"');
      expect(created.body.message).toContain('repeat the key "ActiveDirectoryConfig"');
      expect((await getPod(cluster, `${runtime}-repeated-key`)).status).toBe(404);
    });

    it("refuses a service account that may not use the credspec (403) without telling how its contents differ", async () => {
      const guessed = JSON.stringify({ ...(webapp01 as Record<string, unknown>), DomainJoinConfig: { Guess: "x" } });
      const created = await createPod(
        cluster,
        pod("guess", {
          serviceAccountName: "default",
          windowsOptions: { gmsaCredentialSpecName: "webapp01", gmsaCredentialSpec: guessed },
        }),
      );
      expect(created.status).toBe(403);
      expect(created.body.message).toMatch(/service account "default".*"webapp01"/);
      expect(created.body.message).not.toContain("DomainJoinConfig");
      expect(created.body.message).not.toContain("differ");
    });

    it("refuses contents without a name (422)", async () => {
      const created = await createPod(
        cluster,
        pod("contents-only", { windowsOptions: { gmsaCredentialSpec: JSON.stringify(webapp01) } }),
      );
      expect(created.status).toBe(422);
      expect(created.body.message).toMatch(/pod: .*contents are set without a credspec name/);
    });

    it("creates a pod without GMSA without calling either function", async () => {
      const before = await reviewCounts();
      expect((await createPod(cluster, pod("plain"))).status).toBe(201);
      expect(await reviewCounts()).toEqual(before);
    });

    it("answers a server-side dry run with the expanded pod and stores nothing", async () => {
      const created = await createPod(
        cluster,
        pod("dry-run", { windowsOptions: { gmsaCredentialSpecName: "webapp01" } }),
        { dryRun: true },
      );
      expect(created.status).toBe(201);
      expect(parsed(created.body.spec?.securityContext?.windowsOptions?.gmsaCredentialSpec)).toEqual(webapp01);
      expect((await getPod(cluster, `${runtime}-dry-run`)).status).toBe(404);
    });

    it("turns the pod-level alpha annotation into fields and fills the contents annotation", async () => {
      const created = await createPod(cluster, pod("annotation-pod", { annotations: { [POD_NAME]: "webapp01" } }));
      expect(created.status).toBe(201);
      const options = created.body.spec?.securityContext?.windowsOptions;
      expect(options?.gmsaCredentialSpecName).toBe("webapp01");
      expect(parsed(options?.gmsaCredentialSpec)).toEqual(webapp01);
      expect(parsed(created.body.metadata?.annotations?.[POD_CONTENTS])).toEqual(webapp01);
    });

    it("turns a container-level alpha annotation into that container's fields and fills its contents annotation", async () => {
      const created = await createPod(
        cluster,
        pod("annotation-container", { annotations: { [APP_NAME]: "webapp01" } }),
      );
      expect(created.status).toBe(201);
      const options = created.body.spec?.containers?.[0]?.securityContext?.windowsOptions;
      expect(options?.gmsaCredentialSpecName).toBe("webapp01");
      expect(parsed(options?.gmsaCredentialSpec)).toEqual(webapp01);
      expect(parsed(created.body.metadata?.annotations?.[APP_CONTENTS])).toEqual(webapp01);
      expect(created.body.spec?.securityContext?.windowsOptions).toBeUndefined();
    });

    it("applies the same rules to a HostProcess pod: expanded when allowed, 403 when not", async () => {
      const hostProcess = (name: string, serviceAccountName: string) =>
        pod(name, {
          serviceAccountName,
          windowsOptions: {
            hostProcess: true,
            runAsUserName: "NT AUTHORITY\\SYSTEM",
            gmsaCredentialSpecName: "webapp01",
          },
          spec: { hostNetwork: true },
        });
      const allowed = await createPod(cluster, hostProcess("host-process", "gmsa-app"));
      expect(allowed.status).toBe(201);
      expect(allowed.body.spec?.securityContext?.windowsOptions?.hostProcess).toBe(true);
      expect(parsed(allowed.body.spec?.securityContext?.windowsOptions?.gmsaCredentialSpec)).toEqual(webapp01);
      const refused = await createPod(cluster, hostProcess("host-process-unbound", "default"));
      expect(refused.status).toBe(403);
    });
  });

  describe("update", () => {
    it("refuses an update that changes the GMSA name annotation (400)", async () => {
      expect((await createPod(cluster, pod("change", { annotations: { [POD_NAME]: "webapp01" } }))).status).toBe(201);
      const patched = await patchPod(cluster, `${runtime}-change`, {
        metadata: { annotations: { [POD_NAME]: "webapp03-ccg" } },
      });
      expect(patched.status).toBe(400);
      expect(patched.body.message).toContain(POD_NAME);
    });

    it("allows an unrelated update (a label) of a GMSA pod, reviewed by both functions", async () => {
      expect(
        (await createPod(cluster, pod("relabel", { windowsOptions: { gmsaCredentialSpecName: "webapp01" } }))).status,
      ).toBe(201);
      const before = await reviewCounts();
      const patched = await patchPod(cluster, `${runtime}-relabel`, { metadata: { labels: { touched: "yes" } } });
      expect(patched.status).toBe(200);
      expect(patched.body.metadata?.labels).toMatchObject({ touched: "yes" });
      expect(await reviewCounts()).toEqual({ expand: before.expand + 1, authorize: before.authorize + 1 });
    });

    it("refuses an ephemeral container naming a credspec the service account may not use (403)", async () => {
      expect((await createPod(cluster, pod("debug-refused"))).status).toBe(201);
      const patched = await patchPod(
        cluster,
        `${runtime}-debug-refused`,
        { spec: { ephemeralContainers: [container("debug", { gmsaCredentialSpecName: "webapp02" })] } },
        "ephemeralcontainers",
      );
      expect(patched.status).toBe(403);
      expect(patched.body.message).toContain('ephemeral container "debug"');
    });

    it("expands an allowed ephemeral container added through pods/ephemeralcontainers", async () => {
      expect((await createPod(cluster, pod("debug-allowed"))).status).toBe(201);
      const patched = await patchPod(
        cluster,
        `${runtime}-debug-allowed`,
        { spec: { ephemeralContainers: [container("debug", { gmsaCredentialSpecName: "webapp01" })] } },
        "ephemeralcontainers",
      );
      expect(patched.status).toBe(200);
      const stored = await getPod(cluster, `${runtime}-debug-allowed`);
      expect(
        parsed(stored.body.spec?.ephemeralContainers?.[0]?.securityContext?.windowsOptions?.gmsaCredentialSpec),
      ).toEqual(webapp01);
    });
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
      for (let tries = 0; ; tries++) {
        const answer = await kubeRequest<{ status?: { allowed?: boolean } }>(admin, sarPath, {
          method: "POST",
          body: review,
        });
        if (answer.body.status?.allowed === true) break;
        if (tries === 50) throw new Error(`gmsa-app still may not use ${name} after 5 s`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const calls = async () => {
        const [expand = [], authorize = []] = await Promise.all([stack.scrape("expand"), stack.scrape("authorize")]);
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
      const [expand = [], authorize = []] = await Promise.all([stack.scrape("expand"), stack.scrape("authorize")]);
      expect(
        sumOf(expand, "gmsa_webhooks_reviews_total", {
          function: "expand",
          operation: "CREATE",
          decision: "allowed",
          code: "200",
        }),
      ).toBeGreaterThan(0);
      expect(
        sumOf(expand, "gmsa_webhooks_kube_requests_total", {
          verb: "get",
          resource: "gmsacredentialspecs",
          code: "200",
        }),
      ).toBeGreaterThan(0);
      expect(
        sumOf(authorize, "gmsa_webhooks_kube_requests_total", {
          verb: "create",
          resource: "localsubjectaccessreviews",
          code: "201",
        }),
      ).toBeGreaterThan(0);
      expect(
        sumOf(authorize, "gmsa_webhooks_reviews_total", { function: "authorize", decision: "denied", code: "403" }),
      ).toBeGreaterThan(0);
      // The functions authenticate with the exec plugin, which minted their tokens.
      expect(
        sumOf(expand, "gmsa_webhooks_token_refreshes_total", { source: "exec", outcome: "success" }),
      ).toBeGreaterThan(0);
    });
});
