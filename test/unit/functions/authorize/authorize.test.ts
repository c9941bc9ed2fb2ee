import { describe, expect, it } from "vitest";
import type { AdmissionReviewResponse, Pod, WindowsOptions } from "../../../../shared/admission/review.ts";
import { annotationKeys } from "../../../../shared/policy/pod-gmsa.ts";
import { AdmissionError } from "../../../../shared/errors.ts";
import { createTestApp, postReview, type TestAppOptions } from "../../../support/app.ts";
import {
  createFakeGmsaClient,
  WITHOUT_CONTENTS,
  type FakeGmsaClientOptions,
} from "../../../support/fake-gmsa-client.ts";
import { buildPod, inlined, PLACES, podWithGmsaAt, WEBAPP1_CREDSPEC, WEBAPP2_CREDSPEC } from "../../../support/pods.ts";
import { buildReview, type ReviewOptions } from "../../../support/reviews.ts";
import { expectDenied } from "../../../support/replies.ts";

const credspecs = { webapp1: WEBAPP1_CREDSPEC, webapp2: WEBAPP2_CREDSPEC, empty: WITHOUT_CONTENTS };
const sa1 = (credSpecName: string) => ({ namespace: "ns1", serviceAccount: "sa1", credSpecName });
const allowed = [sa1("webapp1"), sa1("webapp2"), sa1("empty")];
const expanded1: WindowsOptions = { gmsaCredentialSpecName: "webapp1", gmsaCredentialSpec: inlined(WEBAPP1_CREDSPEC) };
const expanded2: WindowsOptions = { gmsaCredentialSpecName: "webapp2", gmsaCredentialSpec: inlined(WEBAPP2_CREDSPEC) };
/** Secret-looking values of the credspecs, which no reply may carry. */
const CONTENT_MARKERS = ["S-1-5-21", "244818ae", "CONTOSO", "contoso.com"];

interface Run {
  reply: AdmissionReviewResponse;
  gmsa: ReturnType<typeof createFakeGmsaClient>;
  rawLogs: () => string;
}

async function authorize(
  pod: Pod | null,
  review: ReviewOptions = {},
  client: FakeGmsaClientOptions = {},
  app: TestAppOptions = {},
): Promise<Run> {
  const gmsa = createFakeGmsaClient({ credspecs, allowed, denyReason: "RBAC: no rule allows use", ...client });
  const test = createTestApp({ gmsa, ...app });
  const reply = await postReview(test.app, "authorize", buildReview(pod, review));
  expect(reply.response.uid).toBe(review.uid ?? "705ab4f5-6393-11e8-b7cc-42010a800002");
  expect(reply.response).not.toHaveProperty("patch");
  expect(reply.response).not.toHaveProperty("patchType");
  for (const marker of CONTENT_MARKERS) expect(JSON.stringify(reply)).not.toContain(marker);
  return { reply, gmsa, rawLogs: test.rawLogs };
}

function expectAllowed(reply: AdmissionReviewResponse): void {
  expect(reply.response.status).toBeUndefined();
  expect(reply.response.allowed).toBe(true);
}

describe("authorize", () => {
  describe.each(PLACES)("with the GMSA on the $kind", ({ kind, label }) => {
    it("allows a pod whose service account may use the credspec and whose contents match", async () => {
      const { reply, gmsa } = await authorize(podWithGmsaAt(kind, expanded1));
      expectAllowed(reply);
      expect(gmsa.contentsCalls).toEqual(new Map([["webapp1", 1]]));
      expect(gmsa.accessQueries).toEqual([sa1("webapp1")]);
    });

    it("denies a pod whose service account may not use the credspec (403), with the authorizer's reason", async () => {
      const { reply } = await authorize(podWithGmsaAt(kind, expanded1), {}, { allowed: [] });
      expectDenied(reply, 403, label, '"webapp1"', '"sa1"', '"ns1"', "RBAC: no rule allows use");
    });

    it("denies contents that differ from the credspec (422), naming only the differing keys", async () => {
      const { reply } = await authorize(
        podWithGmsaAt(kind, { gmsaCredentialSpecName: "webapp1", gmsaCredentialSpec: inlined(WEBAPP2_CREDSPEC) }),
      );
      expectDenied(
        reply,
        422,
        label,
        '"webapp1"',
        "DomainJoinConfig.MachineAccountName",
        "ActiveDirectoryConfig.GroupManagedServiceAccounts",
      );
      expect(reply.response.status?.message).not.toContain("WebApp");
    });

    it("allows matching contents in another key order and layout", async () => {
      const reordered = JSON.stringify(Object.fromEntries(Object.entries(WEBAPP1_CREDSPEC).reverse()), null, 2);
      expectAllowed(
        (await authorize(podWithGmsaAt(kind, { gmsaCredentialSpecName: "webapp1", gmsaCredentialSpec: reordered })))
          .reply,
      );
    });

    it('denies contents whose types differ (1 vs "1") (422)', async () => {
      const { reply } = await authorize(
        podWithGmsaAt(kind, { gmsaCredentialSpecName: "num", gmsaCredentialSpec: '{"n":1}' }),
        {},
        {
          credspecs: { num: { n: "1" } },
          allowed: [sa1("num")],
        },
      );
      expectDenied(reply, 422, label, '"num"', "n");
    });

    it("denies contents whose arrays are in another order (422)", async () => {
      const swapped = {
        ...WEBAPP1_CREDSPEC,
        ActiveDirectoryConfig: {
          GroupManagedServiceAccounts: [
            ...WEBAPP1_CREDSPEC.ActiveDirectoryConfig.GroupManagedServiceAccounts,
          ].reverse(),
        },
      };
      const { reply } = await authorize(
        podWithGmsaAt(kind, { gmsaCredentialSpecName: "webapp1", gmsaCredentialSpec: inlined(swapped) }),
      );
      expectDenied(reply, 422, label, "ActiveDirectoryConfig.GroupManagedServiceAccounts[0].Scope");
    });

    it("denies an unknown credspec (422)", async () => {
      const { reply } = await authorize(
        podWithGmsaAt(kind, { gmsaCredentialSpecName: "missing", gmsaCredentialSpec: "{}" }),
        {},
        {
          allowed: [sa1("missing")],
        },
      );
      expectDenied(reply, 422, label, '"missing"');
    });

    it("denies a credspec resource without a credspec field (422)", async () => {
      const { reply } = await authorize(
        podWithGmsaAt(kind, { gmsaCredentialSpecName: "empty", gmsaCredentialSpec: "{}" }),
      );
      expectDenied(reply, 422, label, '"empty"');
    });

    it("denies contents without a name (422) without any API call", async () => {
      const { reply, gmsa } = await authorize(podWithGmsaAt(kind, { gmsaCredentialSpec: inlined(WEBAPP1_CREDSPEC) }));
      expectDenied(reply, 422, label);
      expect(gmsa.callCount()).toBe(0);
    });

    it("denies a name without contents (422): expand did not run; no API call", async () => {
      const { reply, gmsa } = await authorize(podWithGmsaAt(kind, { gmsaCredentialSpecName: "webapp1" }));
      expectDenied(reply, 422, label, '"webapp1"');
      expect(gmsa.callCount()).toBe(0);
    });

    it("denies contents that are not JSON (422) without quoting them and without any API call", async () => {
      const { reply, gmsa } = await authorize(
        podWithGmsaAt(kind, { gmsaCredentialSpecName: "webapp1", gmsaCredentialSpec: "{password: hunter2" }),
      );
      expectDenied(reply, 422, label, '"webapp1"');
      expect(reply.response.status?.message).not.toContain("hunter2");
      expect(gmsa.callCount()).toBe(0);
    });

    it.each(["WebApp1", "web_app", "a".repeat(254), "webapp1/../x"])(
      "denies the invalid credspec name %j (422) without any API call",
      async (name) => {
        const { reply, gmsa } = await authorize(
          podWithGmsaAt(kind, { gmsaCredentialSpecName: name, gmsaCredentialSpec: "{}" }),
        );
        expectDenied(reply, 422, label);
        expect(gmsa.callCount()).toBe(0);
      },
    );

    it.each([
      [
        "ERR_KUBE_API",
        new AdmissionError("LocalSubjectAccessReview failed: 503 ServiceUnavailable", { code: "ERR_KUBE_API" }),
      ],
      ["a plain Error", new Error("socket hang up near token abc")],
    ])("fails closed on %s from the client (500), never leaking a plain Error's message", async (_what, error) => {
      const { reply, rawLogs } = await authorize(
        podWithGmsaAt(kind, expanded1),
        {},
        { fail: (call) => (call === "canUseCredSpec" ? error : undefined) },
      );
      expectDenied(reply, 500);
      if (!(error instanceof AdmissionError)) {
        expect(reply.response.status?.message).not.toContain("hang up");
        expect(rawLogs()).not.toContain("hang up");
      }
    });

    it("treats a HostProcess pod by the same rules", async () => {
      const hostProcess = { hostProcess: true, runAsUserName: "NT AUTHORITY\\SYSTEM" };
      const pod = podWithGmsaAt(kind, { ...expanded1, ...hostProcess });
      pod.spec!.hostNetwork = true;
      const ok = await authorize(pod);
      expectAllowed(ok.reply);
      expect(ok.reply.response).not.toHaveProperty("warnings");
      expectDenied((await authorize(pod, {}, { allowed: [] })).reply, 403, label);
    });

    describe("UPDATE", () => {
      it.each([
        ["the name", { ...expanded1, gmsaCredentialSpecName: "webapp2" }],
        ["the contents", { ...expanded1, gmsaCredentialSpec: inlined(WEBAPP2_CREDSPEC) }],
        ["the name and the contents", expanded2],
        ["the removal of the GMSA", {}],
      ])("denies an update of %s (400) without any API call", async (_what, after) => {
        const { reply, gmsa } = await authorize(podWithGmsaAt(kind, after), {
          operation: "UPDATE",
          oldObject: podWithGmsaAt(kind, expanded1),
        });
        expectDenied(reply, 400, label);
        expect(gmsa.callCount()).toBe(0);
      });

      it("allows an update of unrelated fields without any API call", async () => {
        const after = podWithGmsaAt(kind, expanded1, { annotations: { "example.com/restartedAt": "now" } });
        after.spec!.activeDeadlineSeconds = 60;
        const { reply, gmsa } = await authorize(after, {
          operation: "UPDATE",
          oldObject: podWithGmsaAt(kind, expanded1),
        });
        expectAllowed(reply);
        expect(gmsa.callCount()).toBe(0);
      });
    });
  });

  it('reviews access for the service account "default" when serviceAccountName is empty or absent', async () => {
    for (const serviceAccountName of ["", undefined]) {
      const pod = podWithGmsaAt("container", expanded1, serviceAccountName === undefined ? {} : { serviceAccountName });
      if (serviceAccountName === undefined) delete pod.spec!.serviceAccountName;
      const { reply, gmsa } = await authorize(
        pod,
        {},
        { allowed: [{ namespace: "ns1", serviceAccount: "default", credSpecName: "webapp1" }] },
      );
      expectAllowed(reply);
      expect(gmsa.accessQueries).toEqual([{ namespace: "ns1", serviceAccount: "default", credSpecName: "webapp1" }]);
    }
  });

  it("reviews access in the request's namespace", async () => {
    const { gmsa } = await authorize(podWithGmsaAt("pod", expanded1, { namespace: "team-a" }), { namespace: "team-a" });
    expect(gmsa.accessQueries).toEqual([{ namespace: "team-a", serviceAccount: "sa1", credSpecName: "webapp1" }]);
  });

  it("loads and reviews a credspec named in ten places once each", async () => {
    const pod = buildPod({
      windowsOptions: expanded1,
      containers: Array.from({ length: 6 }, (_, i) => ({ name: `c${i}`, windowsOptions: expanded1 })),
      initContainers: Array.from({ length: 3 }, (_, i) => ({ name: `i${i}`, windowsOptions: expanded1 })),
    });
    const { reply, gmsa } = await authorize(pod);
    expectAllowed(reply);
    expect(gmsa.contentsCalls).toEqual(new Map([["webapp1", 1]]));
    expect(gmsa.accessQueries).toEqual([sa1("webapp1")]);
  });

  it("loads and reviews distinct credspecs all at once", async () => {
    const pod = buildPod({
      containers: [
        { name: "a", windowsOptions: expanded1 },
        { name: "b", windowsOptions: expanded2 },
      ],
    });
    const { reply, gmsa } = await authorize(pod, {}, { delayMs: 20 });
    expectAllowed(reply);
    expect(gmsa.maxInFlight()).toBe(4);
  });

  it("denies every offending place, not just the first", async () => {
    const pod = buildPod({
      windowsOptions: expanded1,
      containers: [
        { name: "app", windowsOptions: expanded1 },
        {
          name: "web",
          windowsOptions: { gmsaCredentialSpecName: "webapp2", gmsaCredentialSpec: inlined(WEBAPP1_CREDSPEC) },
        },
      ],
      initContainers: [{ name: "setup", windowsOptions: expanded1 }],
    });
    const { reply } = await authorize(pod, {}, { allowed: [sa1("webapp2")] });
    expectDenied(
      reply,
      403,
      "pod",
      'container "app"',
      'init container "setup"',
      'container "web"',
      '"webapp1"',
      '"webapp2"',
    );
  });

  it.each([
    ["500 over 403 and 422", [sa1("webapp2")], "broken", 500],
    ["403 over 422", [sa1("webapp2")], undefined, 403],
    ["422 alone", allowed, undefined, 422],
  ] as const)("answers the highest-precedence code when failures mix: %s", async (_what, allow, broken, code) => {
    const pod = buildPod({
      containers: [
        { name: "a", windowsOptions: expanded1 },
        {
          name: "b",
          windowsOptions: { gmsaCredentialSpecName: "webapp2", gmsaCredentialSpec: inlined(WEBAPP1_CREDSPEC) },
        },
        ...(broken === undefined
          ? []
          : [{ name: "c", windowsOptions: { gmsaCredentialSpecName: broken, gmsaCredentialSpec: "{}" } }]),
      ],
    });
    const { reply } = await authorize(
      pod,
      {},
      {
        allowed: [...allow],
        fail: (_c, name) => (name === "broken" ? new AdmissionError("503", { code: "ERR_KUBE_API" }) : undefined),
      },
    );
    expectDenied(reply, code, 'container "b"');
  });

  it("denies more distinct credspecs than MAX_CREDSPECS_PER_POD, 16 (422) without any API call", async () => {
    const containers = Array.from({ length: 17 }, (_, i) => ({
      name: `c${i}`,
      windowsOptions: { gmsaCredentialSpecName: `spec-${i}`, gmsaCredentialSpec: "{}" },
    }));
    const { reply, gmsa } = await authorize(buildPod({ containers }));
    expectDenied(reply, 422, "17 distinct credspecs", "at most 16");
    expect(gmsa.callCount()).toBe(0);
  });

  it("allows a pod without any GMSA reference without any API call", async () => {
    const { reply, gmsa } = await authorize(buildPod());
    expect(reply.response).toEqual({
      uid: reply.response.uid,
      allowed: true,
      auditAnnotations: { decision: "allowed" },
    });
    expect(gmsa.callCount()).toBe(0);
  });

  describe("runAsUserName", () => {
    it.each(PLACES)(
      "warns when the $kind has a GMSA and runs as another account, and still allows",
      async ({ kind }) => {
        const { reply } = await authorize(podWithGmsaAt(kind, { ...expanded1, runAsUserName: "ContainerUser" }));
        expectAllowed(reply);
        expect(reply.response.warnings?.length).toBeGreaterThan(0);
        expect(reply.response.warnings?.[0]).toContain("ContainerUser");
      },
    );

    it.each([
      "NT AUTHORITY\\SYSTEM",
      "NT AUTHORITY\\NETWORK SERVICE",
      "nt authority\\network service",
      "NT Authority\\System",
    ])("gives no warning for %j", async (user) => {
      const { reply } = await authorize(podWithGmsaAt("container", { ...expanded1, runAsUserName: user }));
      expect(reply.response).toEqual({
        uid: reply.response.uid,
        allowed: true,
        auditAnnotations: { decision: "allowed", credspecs: "webapp1" },
      });
    });
  });

  describe("alpha annotations", () => {
    it("allows expanded annotations whose contents match the credspec", async () => {
      const keys = annotationKeys("app");
      const pod = podWithGmsaAt("container", expanded1, {
        annotations: { [keys.nameKey]: "webapp1", [keys.contentsKey]: inlined(WEBAPP1_CREDSPEC) },
      });
      const { reply, gmsa } = await authorize(pod);
      expectAllowed(reply);
      expect(gmsa.contentsCalls).toEqual(new Map([["webapp1", 1]]));
    });

    it("denies annotation contents that differ from the credspec (422), naming the annotation", async () => {
      const keys = annotationKeys();
      const pod = buildPod({
        annotations: { [keys.nameKey]: "webapp1", [keys.contentsKey]: inlined(WEBAPP2_CREDSPEC) },
      });
      const { reply } = await authorize(pod);
      expectDenied(reply, 422, keys.nameKey, '"webapp1"');
    });

    it("denies an annotation that conflicts with its field (422) and one naming an absent container (422)", async () => {
      const keys = annotationKeys("app");
      const conflict = podWithGmsaAt("container", expanded1, {
        annotations: { [keys.nameKey]: "webapp2", [keys.contentsKey]: inlined(WEBAPP2_CREDSPEC) },
      });
      expectDenied((await authorize(conflict)).reply, 422, keys.nameKey, 'container "app"');
      const ghost = annotationKeys("ghost");
      const absent = buildPod({
        annotations: { [ghost.nameKey]: "webapp1", [ghost.contentsKey]: inlined(WEBAPP1_CREDSPEC) },
      });
      expectDenied((await authorize(absent)).reply, 422, '"ghost"');
    });

    it("denies a changed annotation on UPDATE (400)", async () => {
      const keys = annotationKeys();
      const before = buildPod({
        annotations: { [keys.nameKey]: "webapp1", [keys.contentsKey]: inlined(WEBAPP1_CREDSPEC) },
      });
      const after = buildPod({
        annotations: { [keys.nameKey]: "webapp2", [keys.contentsKey]: inlined(WEBAPP1_CREDSPEC) },
      });
      expectDenied((await authorize(after, { operation: "UPDATE", oldObject: before })).reply, 400, keys.nameKey);
    });
  });

  describe("ephemeral containers (UPDATE of pods/ephemeralcontainers)", () => {
    const existing = buildPod({
      windowsOptions: expanded2,
      ephemeralContainers: [{ name: "debugger-1", windowsOptions: expanded2 }],
    });
    const withNew = (windowsOptions: WindowsOptions): Pod => {
      const pod = structuredClone(existing);
      pod.spec!.ephemeralContainers!.push({ name: "debugger-2", securityContext: { windowsOptions } });
      return pod;
    };
    const subresource = { operation: "UPDATE" as const, subResource: "ephemeralcontainers", oldObject: existing };

    it("judges a new ephemeral container like a create: allowed when its service account may use the credspec", async () => {
      const { reply, gmsa } = await authorize(withNew(expanded1), subresource, { allowed: [sa1("webapp1")] });
      expectAllowed(reply);
      expect(gmsa.accessQueries).toEqual([sa1("webapp1")]);
    });

    it("denies a new ephemeral container whose service account may not use the credspec (403)", async () => {
      const { reply } = await authorize(withNew(expanded1), subresource, { allowed: [sa1("webapp2")] });
      expectDenied(reply, 403, 'ephemeral container "debugger-2"', '"webapp1"');
    });

    it("denies a new ephemeral container that expand did not fill (422)", async () => {
      const { reply } = await authorize(withNew({ gmsaCredentialSpecName: "webapp1" }), subresource);
      expectDenied(reply, 422, 'ephemeral container "debugger-2"');
    });

    it("denies a change of an existing ephemeral container (400)", async () => {
      const changed = withNew({});
      changed.spec!.ephemeralContainers![0]!.securityContext!.windowsOptions = expanded1;
      const { reply, gmsa } = await authorize(changed, subresource);
      expectDenied(reply, 400, 'ephemeral container "debugger-1"');
      expect(gmsa.callCount()).toBe(0);
    });

    it("allows a new ephemeral container without GMSA in a pod without a pod-level GMSA, without any API call", async () => {
      const before = buildPod({ ephemeralContainers: [{ name: "debugger-1", windowsOptions: expanded2 }] });
      const after = structuredClone(before);
      after.spec!.ephemeralContainers!.push({ name: "debugger-2" });
      const { reply, gmsa } = await authorize(after, { ...subresource, oldObject: before });
      expectAllowed(reply);
      expect(gmsa.callCount()).toBe(0);
    });

    it("judges a new ephemeral container without GMSA of its own under the pod-level GMSA: 403 when its service account may not use it", async () => {
      const { reply, gmsa } = await authorize(withNew({ runAsUserName: "ContainerAdministrator" }), subresource, {
        allowed: [sa1("webapp1")],
      });
      expectDenied(reply, 403, 'ephemeral container "debugger-2" (pod-level GMSA)', '"webapp2"');
      expect(reply.response.auditAnnotations).toMatchObject({ decision: "denied", credspecs: "webapp2" });
      expect(gmsa.accessQueries).toEqual([sa1("webapp2")]);
    });
  });

  it.each(["DELETE", "CONNECT"] as const)("allows %s without any API call", async (operation) => {
    const { reply, gmsa } = await authorize(null, {
      operation,
      oldObject: podWithGmsaAt("pod", { gmsaCredentialSpecName: "BAD" }),
    });
    expect(reply.response).toEqual({ uid: reply.response.uid, allowed: true });
    expect(gmsa.callCount()).toBe(0);
  });

  it("allows another kind unchanged with a warning", async () => {
    const { reply } = await authorize(
      { metadata: { name: "d" } },
      { kind: { group: "apps", version: "v1", kind: "Deployment" } },
    );
    expect(reply.response.allowed).toBe(true);
    expect(reply.response.warnings).toEqual([expect.stringContaining("apps/v1 Deployment")]);
  });

  it("gives a dryRun review the same decision", async () => {
    for (const pod of [podWithGmsaAt("pod", expanded1), podWithGmsaAt("pod", { gmsaCredentialSpecName: "webapp1" })]) {
      for (const allow of [allowed, []]) {
        const wet = await authorize(pod, {}, { allowed: allow });
        const dry = await authorize(pod, { dryRun: true }, { allowed: allow });
        expect(dry.reply).toEqual(wet.reply);
      }
    }
  });

  it("answers a v1beta1 review in v1beta1 with the uid echoed", async () => {
    const { reply } = await authorize(
      podWithGmsaAt("pod", expanded1),
      { apiVersion: "admission.k8s.io/v1beta1", uid: "b1" },
      { allowed: [] },
    );
    expect(reply.apiVersion).toBe("admission.k8s.io/v1beta1");
    expect(reply.response).toMatchObject({ uid: "b1", allowed: false, status: { code: 403 } });
  });
});
