import { describe, expect, it } from "vitest";
import type { AdmissionReviewResponse, Pod } from "../../../../shared/admission/review.ts";
import { annotationKeys } from "../../../../shared/policy/pod-gmsa.ts";
import { AdmissionError } from "../../../../shared/errors.ts";
import { createRandomHostname } from "../../../../shared/policy/expand.ts";
import { createTestApp, fixedRandomBytes, postReview, type TestAppOptions } from "../../../support/app.ts";
import {
  createFakeGmsaClient,
  WITHOUT_CONTENTS,
  type FakeGmsaClientOptions,
} from "../../../support/fake-gmsa-client.ts";
import {
  buildPod,
  inlined,
  PLACES,
  podWithGmsaAt,
  WEBAPP1_CREDSPEC,
  WEBAPP2_CREDSPEC,
  windowsOptionsAt,
} from "../../../support/pods.ts";
import { applyReplyPatch, buildReview, decodePatch, type ReviewOptions } from "../../../support/reviews.ts";
import { expectDenied } from "../../../support/replies.ts";

const credspecs = { webapp1: WEBAPP1_CREDSPEC, webapp2: WEBAPP2_CREDSPEC, empty: WITHOUT_CONTENTS };

interface Run {
  reply: AdmissionReviewResponse;
  /** The input pod with the reply's patch applied. */
  pod: Pod;
  gmsa: ReturnType<typeof createFakeGmsaClient>;
  rawLogs: () => string;
}

async function expand(
  pod: Pod,
  review: ReviewOptions = {},
  client: FakeGmsaClientOptions = {},
  app: TestAppOptions = {},
): Promise<Run> {
  const gmsa = createFakeGmsaClient({ credspecs, ...client });
  const test = createTestApp({ gmsa, ...app });
  const reply = await postReview(test.app, "expand", buildReview(pod, review));
  expect(reply.response.uid).toBe(review.uid ?? "705ab4f5-6393-11e8-b7cc-42010a800002");
  if (!reply.response.allowed) {
    expect(reply.response).not.toHaveProperty("patch");
    for (const marker of ["S-1-5-21", "244818ae", "CONTOSO", "contoso.com"])
      expect(reply.response.status?.message).not.toContain(marker);
  }
  if (reply.response.patch === undefined) expect(reply.response).not.toHaveProperty("patchType");
  else expect(reply.response.patchType).toBe("JSONPatch");
  return { reply, pod: applyReplyPatch(pod, reply), gmsa, rawLogs: test.rawLogs };
}

describe("expand", () => {
  describe.each(PLACES)("with the GMSA on the $kind", ({ kind, label }) => {
    it("inlines the named credspec's contents as JSON, loading it once", async () => {
      const { reply, pod, gmsa } = await expand(podWithGmsaAt(kind, { gmsaCredentialSpecName: "webapp1" }));
      expect(reply.response.allowed).toBe(true);
      expect(windowsOptionsAt(pod, kind)).toEqual({
        gmsaCredentialSpecName: "webapp1",
        gmsaCredentialSpec: inlined(WEBAPP1_CREDSPEC),
      });
      expect(JSON.parse(windowsOptionsAt(pod, kind)?.gmsaCredentialSpec ?? "")).toEqual(WEBAPP1_CREDSPEC);
      expect(gmsa.contentsCalls).toEqual(new Map([["webapp1", 1]]));
      expect(gmsa.accessQueries).toEqual([]);
    });

    it("keeps the other windowsOptions and touches nothing else", async () => {
      const input = podWithGmsaAt(kind, { gmsaCredentialSpecName: "webapp1", runAsUserName: "NT AUTHORITY\\SYSTEM" });
      const { pod } = await expand(input);
      const expected = structuredClone(input);
      windowsOptionsAt(expected, kind)!.gmsaCredentialSpec = inlined(WEBAPP1_CREDSPEC);
      expect(pod).toEqual(expected);
    });

    it("leaves preset contents that match the credspec alone (no patch, no load)", async () => {
      const { reply, gmsa } = await expand(
        podWithGmsaAt(kind, { gmsaCredentialSpecName: "webapp1", gmsaCredentialSpec: inlined(WEBAPP1_CREDSPEC) }),
      );
      expect(reply.response.allowed).toBe(true);
      expect(decodePatch(reply)).toEqual([]);
      expect(gmsa.callCount()).toBe(0);
    });

    it("leaves preset contents that differ from the credspec for authorize to judge (no patch)", async () => {
      const { reply } = await expand(
        podWithGmsaAt(kind, { gmsaCredentialSpecName: "webapp1", gmsaCredentialSpec: inlined(WEBAPP2_CREDSPEC) }),
      );
      expect(reply.response.allowed).toBe(true);
      expect(reply.response).not.toHaveProperty("patch");
    });

    it("leaves contents without a name for authorize to judge (no patch, no API call)", async () => {
      const { reply, gmsa } = await expand(podWithGmsaAt(kind, { gmsaCredentialSpec: inlined(WEBAPP1_CREDSPEC) }));
      expect(reply.response).toEqual({ uid: reply.response.uid, allowed: true });
      expect(gmsa.callCount()).toBe(0);
    });

    it("denies an unknown credspec (422), naming the place and the credspec", async () => {
      const { reply } = await expand(podWithGmsaAt(kind, { gmsaCredentialSpecName: "missing" }));
      expectDenied(reply, 422, label, '"missing"');
    });

    it("denies a credspec resource without a credspec field (422)", async () => {
      const { reply } = await expand(podWithGmsaAt(kind, { gmsaCredentialSpecName: "empty" }));
      expectDenied(reply, 422, label, '"empty"');
    });

    it.each(["WebApp1", "web_app", "-web", "a".repeat(254), "../../api/v1/secrets"])(
      "denies the invalid credspec name %j (422) without any API call",
      async (name) => {
        const { reply, gmsa } = await expand(podWithGmsaAt(kind, { gmsaCredentialSpecName: name }));
        expectDenied(reply, 422, label);
        expect(gmsa.callCount()).toBe(0);
      },
    );

    it("denies contents over 65,536 bytes (422) before any patch, naming the place and credspec", async () => {
      const big = { ...WEBAPP1_CREDSPEC, padding: "x".repeat(70_000) };
      const { reply } = await expand(
        podWithGmsaAt(kind, { gmsaCredentialSpecName: "big" }),
        {},
        { credspecs: { big } },
      );
      expectDenied(reply, 422, label, '"big"');
      expect(reply.response.status?.message).not.toContain("xxxx");
    });

    it.each([
      ["ERR_KUBE_API", new AdmissionError("the API server answered 503 ServiceUnavailable", { code: "ERR_KUBE_API" })],
      ["a plain Error", new Error("ECONNRESET talking to https://10.0.0.1:6443 with token abc")],
    ])("fails closed on %s from the client (500), never leaking a plain Error's message", async (_what, error) => {
      const { reply, rawLogs } = await expand(
        podWithGmsaAt(kind, { gmsaCredentialSpecName: "webapp1" }),
        {},
        { fail: () => error },
      );
      expectDenied(reply, 500);
      if (!(error instanceof AdmissionError)) {
        expect(reply.response.status?.message).not.toContain("ECONNRESET");
        expect(rawLogs()).not.toContain("ECONNRESET");
      }
    });

    it("sets a random hostname derived from the injected bytes when RANDOM_HOSTNAME is on", async () => {
      const { pod } = await expand(
        podWithGmsaAt(kind, { gmsaCredentialSpecName: "webapp1" }),
        {},
        {},
        { settings: { randomHostname: true } },
      );
      expect(pod.spec?.hostname).toBe(createRandomHostname(fixedRandomBytes(15)));
      expect(pod.spec?.hostname).toMatch(/^[a-z][a-z0-9]{14}$/);
    });

    it("sets no hostname when RANDOM_HOSTNAME is off", async () => {
      const { pod } = await expand(podWithGmsaAt(kind, { gmsaCredentialSpecName: "webapp1" }));
      expect(pod.spec).not.toHaveProperty("hostname");
    });

    it("keeps a preset hostname when RANDOM_HOSTNAME is on", async () => {
      const input = podWithGmsaAt(kind, { gmsaCredentialSpecName: "webapp1" }, { hostname: "web-0" });
      const { pod } = await expand(input, {}, {}, { settings: { randomHostname: true } });
      expect(pod.spec?.hostname).toBe("web-0");
    });

    it("treats a HostProcess pod by the same rules", async () => {
      const input = podWithGmsaAt(kind, {
        gmsaCredentialSpecName: "webapp1",
        hostProcess: true,
        runAsUserName: "NT AUTHORITY\\SYSTEM",
      });
      input.spec!.hostNetwork = true;
      const { reply, pod } = await expand(input);
      expect(reply.response.allowed).toBe(true);
      expect(windowsOptionsAt(pod, kind)?.gmsaCredentialSpec).toBe(inlined(WEBAPP1_CREDSPEC));
      const denied = await expand(podWithGmsaAt(kind, { gmsaCredentialSpecName: "missing", hostProcess: true }));
      expectDenied(denied.reply, 422, label);
    });
  });

  it("logs the class name of a plain Error from the client, never its message", async () => {
    const gmsa = createFakeGmsaClient({ fail: () => new TypeError("fetch failed: token abc") });
    const test = createTestApp({ gmsa });
    await postReview(
      test.app,
      "expand",
      buildReview(podWithGmsaAt("pod", { gmsaCredentialSpecName: "webapp1" }), { uid: "uid-9" }),
    );
    expect(test.logs()).toEqual([
      expect.objectContaining({ uid: "uid-9", code: 500, errors: "ERR_INTERNAL", cause: "TypeError" }),
    ]);
    expect(test.rawLogs()).not.toContain("token abc");
  });

  it("gives several containers sharing one credspec the contents each, from one load", async () => {
    const containers = [{ name: "a" }, { name: "b" }, { name: "c" }].map((c) => ({
      ...c,
      windowsOptions: { gmsaCredentialSpecName: "webapp1" },
    }));
    const { pod, gmsa } = await expand(buildPod({ containers }));
    expect(pod.spec?.containers).toHaveLength(3);
    for (const c of pod.spec?.containers ?? [])
      expect(c.securityContext?.windowsOptions?.gmsaCredentialSpec).toBe(inlined(WEBAPP1_CREDSPEC));
    expect(gmsa.contentsCalls).toEqual(new Map([["webapp1", 1]]));
  });

  it("loads a credspec named in ten places once", async () => {
    const gmsa1 = { gmsaCredentialSpecName: "webapp1" };
    const input = buildPod({
      windowsOptions: gmsa1,
      containers: Array.from({ length: 6 }, (_, i) => ({ name: `c${i}`, windowsOptions: gmsa1 })),
      initContainers: Array.from({ length: 3 }, (_, i) => ({ name: `i${i}`, windowsOptions: gmsa1 })),
    });
    const { reply, gmsa } = await expand(input);
    expect(reply.response.allowed).toBe(true);
    expect(decodePatch(reply)).toHaveLength(10);
    expect(gmsa.contentsCalls).toEqual(new Map([["webapp1", 1]]));
  });

  it("gives a container with its own credspec its own contents over the pod's", async () => {
    const input = buildPod({
      windowsOptions: { gmsaCredentialSpecName: "webapp1" },
      containers: [{ name: "app" }, { name: "other", windowsOptions: { gmsaCredentialSpecName: "webapp2" } }],
    });
    const { pod, gmsa } = await expand(input);
    expect(pod.spec?.securityContext?.windowsOptions?.gmsaCredentialSpec).toBe(inlined(WEBAPP1_CREDSPEC));
    expect(pod.spec?.containers?.[0]).not.toHaveProperty("securityContext");
    expect(pod.spec?.containers?.[1]?.securityContext?.windowsOptions?.gmsaCredentialSpec).toBe(
      inlined(WEBAPP2_CREDSPEC),
    );
    expect(gmsa.contentsCalls).toEqual(
      new Map([
        ["webapp1", 1],
        ["webapp2", 1],
      ]),
    );
  });

  it("denies every place naming an unknown credspec, not just the first", async () => {
    const input = buildPod({
      windowsOptions: { gmsaCredentialSpecName: "missing" },
      containers: [{ name: "app", windowsOptions: { gmsaCredentialSpecName: "gone" } }],
      initContainers: [{ name: "setup", windowsOptions: { gmsaCredentialSpecName: "missing" } }],
    });
    const { reply } = await expand(input);
    expectDenied(reply, 422, "pod", 'container "app"', 'init container "setup"', '"missing"', '"gone"');
  });

  it("answers the highest-precedence code when failures mix (500 over 422)", async () => {
    const input = buildPod({
      containers: [
        { name: "a", windowsOptions: { gmsaCredentialSpecName: "missing" } },
        { name: "b", windowsOptions: { gmsaCredentialSpecName: "broken" } },
      ],
    });
    const { reply } = await expand(
      input,
      {},
      { fail: (_c, name) => (name === "broken" ? new AdmissionError("503", { code: "ERR_KUBE_API" }) : undefined) },
    );
    expectDenied(reply, 500, 'container "a"', 'container "b"');
  });

  it("denies more distinct credspecs than MAX_CREDSPECS_PER_POD, 16 (422) without any API call", async () => {
    const containers = Array.from({ length: 17 }, (_, i) => ({
      name: `c${i}`,
      windowsOptions: { gmsaCredentialSpecName: `spec-${i}` },
    }));
    const { reply, gmsa } = await expand(buildPod({ containers }));
    expectDenied(reply, 422, "17 distinct credspecs", "at most 16");
    expect(gmsa.callCount()).toBe(0);
  });

  it("allows a pod without any GMSA reference unchanged, without any API call", async () => {
    const { reply, gmsa } = await expand(buildPod(), {}, {}, { settings: { randomHostname: true } });
    expect(reply.response).toEqual({ uid: reply.response.uid, allowed: true });
    expect(gmsa.callCount()).toBe(0);
  });

  describe("alpha annotations", () => {
    it.each([
      { kind: "pod" as const, keys: annotationKeys() },
      { kind: "container" as const, keys: annotationKeys("app") },
      { kind: "init container" as const, keys: annotationKeys("setup") },
    ])("fills the $kind contents annotation and sets the fields", async ({ kind, keys }) => {
      const { reply, pod } = await expand(buildPod({ annotations: { [keys.nameKey]: "webapp1", other: "kept" } }));
      expect(reply.response.allowed).toBe(true);
      expect(pod.metadata?.annotations).toEqual({
        [keys.nameKey]: "webapp1",
        [keys.contentsKey]: inlined(WEBAPP1_CREDSPEC),
        other: "kept",
      });
      expect(windowsOptionsAt(pod, kind)).toEqual({
        gmsaCredentialSpecName: "webapp1",
        gmsaCredentialSpec: inlined(WEBAPP1_CREDSPEC),
      });
    });

    it("loads a credspec named by an annotation and its field once", async () => {
      const { gmsa, pod } = await expand(
        podWithGmsaAt(
          "container",
          { gmsaCredentialSpecName: "webapp1" },
          { annotations: { [annotationKeys("app").nameKey]: "webapp1" } },
        ),
      );
      expect(gmsa.contentsCalls).toEqual(new Map([["webapp1", 1]]));
      expect(windowsOptionsAt(pod, "container")?.gmsaCredentialSpec).toBe(inlined(WEBAPP1_CREDSPEC));
    });

    it.each(PLACES)(
      "denies an annotation that conflicts with the field on the $kind (422) without any API call",
      async ({ kind, label }) => {
        const keys = annotationKeys(kind === "pod" ? undefined : kind === "container" ? "app" : "setup");
        const { reply, gmsa } = await expand(
          podWithGmsaAt(kind, { gmsaCredentialSpecName: "webapp1" }, { annotations: { [keys.nameKey]: "webapp2" } }),
        );
        expectDenied(reply, 422, label, keys.nameKey);
        expect(gmsa.callCount()).toBe(0);
      },
    );

    it("denies an annotation naming an absent container (422)", async () => {
      const key = annotationKeys("ghost").nameKey;
      const { reply } = await expand(buildPod({ annotations: { [key]: "webapp1" } }));
      expectDenied(reply, 422, '"ghost"', key);
    });

    it("denies an unknown credspec named by an annotation (422), naming the annotation", async () => {
      const key = annotationKeys().nameKey;
      const { reply } = await expand(buildPod({ annotations: { [key]: "missing" } }));
      expectDenied(reply, 422, key, '"missing"');
    });
  });

  describe("ephemeral containers (UPDATE of pods/ephemeralcontainers)", () => {
    const existing = buildPod({
      windowsOptions: { gmsaCredentialSpecName: "webapp2", gmsaCredentialSpec: inlined(WEBAPP2_CREDSPEC) },
      ephemeralContainers: [
        { name: "debugger-1", windowsOptions: { gmsaCredentialSpecName: "webapp2", gmsaCredentialSpec: "{}" } },
      ],
    });

    it("expands a new ephemeral container like a create and leaves existing ones and the hostname alone", async () => {
      const input = structuredClone(existing);
      input.spec!.ephemeralContainers!.push({
        name: "debugger-2",
        securityContext: { windowsOptions: { gmsaCredentialSpecName: "webapp1" } },
      });
      const { reply, pod, gmsa } = await expand(
        input,
        { operation: "UPDATE", subResource: "ephemeralcontainers", oldObject: existing },
        {},
        { settings: { randomHostname: true } },
      );
      expect(reply.response.allowed).toBe(true);
      const expected = structuredClone(input);
      expected.spec!.ephemeralContainers![1]!.securityContext!.windowsOptions!.gmsaCredentialSpec =
        inlined(WEBAPP1_CREDSPEC);
      expect(pod).toEqual(expected);
      expect(gmsa.contentsCalls).toEqual(new Map([["webapp1", 1]]));
    });

    it("denies a new ephemeral container naming an unknown credspec (422)", async () => {
      const input = structuredClone(existing);
      input.spec!.ephemeralContainers!.push({
        name: "debugger-2",
        securityContext: { windowsOptions: { gmsaCredentialSpecName: "missing" } },
      });
      const { reply } = await expand(input, {
        operation: "UPDATE",
        subResource: "ephemeralcontainers",
        oldObject: existing,
      });
      expectDenied(reply, 422, 'ephemeral container "debugger-2"', '"missing"');
    });

    it("denies an ephemeral UPDATE without oldObject as a bad review (400)", async () => {
      const { reply } = await expand(existing, { operation: "UPDATE", subResource: "ephemeralcontainers" });
      expectDenied(reply, 400, "oldObject");
    });
  });

  it.each(["UPDATE", "DELETE", "CONNECT"] as const)("allows %s unchanged without any API call", async (operation) => {
    const input = podWithGmsaAt("pod", { gmsaCredentialSpecName: "webapp1" });
    const { reply, gmsa } = await expand(operation === "DELETE" ? (null as unknown as Pod) : input, {
      operation,
      oldObject: input,
    });
    expect(reply.response).toEqual({ uid: reply.response.uid, allowed: true });
    expect(gmsa.callCount()).toBe(0);
  });

  it("allows another kind unchanged with a warning", async () => {
    const { reply, gmsa } = await expand(
      { metadata: { name: "cm" }, data: {} },
      { kind: { group: "", version: "v1", kind: "ConfigMap" } },
    );
    expect(reply.response.allowed).toBe(true);
    expect(reply.response).not.toHaveProperty("patch");
    expect(reply.response.warnings).toEqual([expect.stringContaining("ConfigMap")]);
    expect(gmsa.callCount()).toBe(0);
  });

  it("gives a dryRun review the same decision and patch", async () => {
    const input = podWithGmsaAt("container", { gmsaCredentialSpecName: "webapp1" });
    const wet = await expand(input);
    const dry = await expand(input, { dryRun: true });
    expect(dry.reply).toEqual(wet.reply);
    const deniedWet = await expand(podWithGmsaAt("container", { gmsaCredentialSpecName: "missing" }));
    const deniedDry = await expand(podWithGmsaAt("container", { gmsaCredentialSpecName: "missing" }), { dryRun: true });
    expect(deniedDry.reply).toEqual(deniedWet.reply);
  });

  it("answers a v1beta1 review in v1beta1 with the uid echoed and the same patch", async () => {
    const { reply, pod } = await expand(podWithGmsaAt("pod", { gmsaCredentialSpecName: "webapp1" }), {
      apiVersion: "admission.k8s.io/v1beta1",
      uid: "b1-uid",
    });
    expect(reply.apiVersion).toBe("admission.k8s.io/v1beta1");
    expect(reply.kind).toBe("AdmissionReview");
    expect(reply.response.uid).toBe("b1-uid");
    expect(windowsOptionsAt(pod, "pod")?.gmsaCredentialSpec).toBe(inlined(WEBAPP1_CREDSPEC));
  });

  it("denies a CREATE whose object is not a pod as a bad review (400)", async () => {
    const { reply } = await expand({ spec: { containers: "nope" } } as unknown as Pod);
    expectDenied(reply, 400, "request.object");
  });
});
