import { describe, expect, it } from "vitest";
import { AdmissionError } from "../../../../shared/errors.ts";
import type { Decision, WindowsOptions } from "../../../../shared/admission/review.ts";
import { decideAuthorize, planAuthorize } from "../../../../shared/policy/authorize.ts";
import type { PolicySettings, ReviewFacts } from "../../../../shared/policy/facts.ts";
import { annotationKeys } from "../../../../shared/policy/pod-gmsa.ts";
import { buildPod, inlined, PLACES, podWithGmsaAt, WEBAPP1_CREDSPEC, WEBAPP2_CREDSPEC } from "../../../support/pods.ts";
import { ALICE, CONNECT_EXEC, create, expectDenied, load, update, type World } from "./review-facts.ts";

const expanded1 = { gmsaCredentialSpecName: "webapp1", gmsaCredentialSpec: inlined(WEBAPP1_CREDSPEC) };
const expanded2 = { gmsaCredentialSpecName: "webapp2", gmsaCredentialSpec: inlined(WEBAPP2_CREDSPEC) };
const cluster: World = {
  credspecs: { webapp1: WEBAPP1_CREDSPEC, webapp2: WEBAPP2_CREDSPEC },
  access: { webapp1: true, webapp2: true },
};
const deny: Pick<PolicySettings, "requestingUser" | "enforcement"> = { requestingUser: "off", enforcement: "deny" };

/** Plans, loads exactly what the plan names from `world`, and decides. */
function authorize(review: ReviewFacts, world: World = cluster, settings: Partial<PolicySettings> = {}): Decision {
  const plan = planAuthorize(review, { ...deny, ...settings });
  return decideAuthorize(plan, load(plan.load, world));
}

describe("authorize: pod creates", () => {
  it.each(PLACES)(
    "allows the $kind whose service account may use the credspec and whose contents match, loading each fact once",
    ({ kind }) => {
      const plan = planAuthorize(create(podWithGmsaAt(kind, expanded1)), deny);
      expect(plan.load).toEqual({
        credspecs: new Set(["webapp1"]),
        access: [{ subject: { namespace: "ns1", serviceAccount: "sa1" }, names: new Set(["webapp1"]) }],
        randomBytes: 0,
      });
      expect(decideAuthorize(plan, load(plan.load, cluster))).toEqual({
        allowed: true,
        auditAnnotations: { decision: "allowed", credspecs: "webapp1" },
      });
    },
  );

  it.each(PLACES)(
    "denies the $kind whose service account may not use the credspec (403), naming the place, account, credspec and reason",
    ({ kind, label }) => {
      const decision = authorize(create(podWithGmsaAt(kind, expanded1)), { ...cluster, access: { webapp1: false } });
      expectDenied(
        decision,
        [["ERR_CREDSPEC_NOT_ALLOWED", 403]],
        `${label}: service account "sa1" in namespace "ns1"`,
        '"webapp1"',
        "no RBAC rule",
      );
      expect(decision.auditAnnotations).toEqual({
        decision: "denied",
        credspecs: "webapp1",
        codes: "ERR_CREDSPEC_NOT_ALLOWED",
      });
    },
  );

  it.each(PLACES)(
    "denies contents on the $kind that differ from the credspec (422), naming keys only",
    ({ kind, label }) => {
      const decision = authorize(
        create(
          podWithGmsaAt(kind, { gmsaCredentialSpecName: "webapp1", gmsaCredentialSpec: inlined(WEBAPP2_CREDSPEC) }),
        ),
      );
      expectDenied(
        decision,
        [["ERR_CONTENTS_MISMATCH", 422]],
        label,
        '"webapp1"',
        "DomainJoinConfig.MachineAccountName",
      );
      expect(JSON.stringify(decision)).not.toContain("WebApp2");
    },
  );

  it.each(PLACES)("denies an unknown credspec on the $kind with the loader's code (422)", ({ kind, label }) => {
    const decision = authorize(create(podWithGmsaAt(kind, expanded1)), {
      ...cluster,
      credspecs: { webapp1: new AdmissionError("not found", { code: "ERR_CREDSPEC_NOT_FOUND" }) },
    });
    expectDenied(decision, [["ERR_CREDSPEC_NOT_FOUND", 422]], label, "not found");
  });

  it.each(PLACES)(
    "never compares contents on the $kind for a credspec the service account may not use (403)",
    ({ kind }) => {
      const pod = podWithGmsaAt(kind, {
        gmsaCredentialSpecName: "webapp1",
        gmsaCredentialSpec: inlined(WEBAPP2_CREDSPEC),
      });
      expectDenied(authorize(create(pod), { ...cluster, access: { webapp1: false } }), [
        ["ERR_CREDSPEC_NOT_ALLOWED", 403],
      ]);
      const failed = authorize(create(pod), {
        ...cluster,
        access: { webapp1: new AdmissionError("review failed", { code: "ERR_KUBE_API" }) },
      });
      expectDenied(failed, [["ERR_KUBE_API", 500]]);
      expect(JSON.stringify(failed)).not.toContain("MachineAccountName");
    },
  );

  it.each(PLACES)(
    "refuses a name without contents on the $kind (422) without loading anything: expand did not run",
    ({ kind, label }) => {
      const plan = planAuthorize(create(podWithGmsaAt(kind, { gmsaCredentialSpecName: "webapp1" })), deny);
      expect(plan.load).toEqual({ credspecs: new Set(), access: [], randomBytes: 0 });
      expectDenied(
        decideAuthorize(plan, load(plan.load, {})),
        [["ERR_NAME_WITHOUT_CONTENTS", 422]],
        label,
        '"webapp1"',
      );
    },
  );

  it.each(PLACES)(
    "refuses contents on the $kind whose repeated key hides another gMSA behind an equal parse (422)",
    ({ kind, label }) => {
      const real = inlined(WEBAPP1_CREDSPEC);
      const smuggled = `{"ActiveDirectoryConfig":{"GroupManagedServiceAccounts":[{"Name":"Other","Scope":"x"}]},${real.slice(1)}`;
      expect(JSON.parse(smuggled)).toEqual(WEBAPP1_CREDSPEC);
      const decision = authorize(
        create(podWithGmsaAt(kind, { gmsaCredentialSpecName: "webapp1", gmsaCredentialSpec: smuggled })),
        {},
      );
      expectDenied(decision, [["ERR_DUPLICATE_CREDSPEC_KEY", 422]], label, '"ActiveDirectoryConfig"');
    },
  );

  it("denies every offending place, not just the first", () => {
    const pod = buildPod({
      windowsOptions: { gmsaCredentialSpec: "{}" },
      containers: [{ name: "app", windowsOptions: { gmsaCredentialSpecName: "Bad_Name", gmsaCredentialSpec: "{}" } }],
      initContainers: [
        { name: "setup", windowsOptions: { gmsaCredentialSpecName: "webapp1", gmsaCredentialSpec: "not json" } },
      ],
    });
    const decision = authorize(create(pod), {});
    expect(decision.allowed ? [] : decision.errors.map((e) => [e.code, e.where?.place])).toEqual([
      ["ERR_INVALID_CREDSPEC_NAME", 'container "app"'],
      ["ERR_CONTENTS_WITHOUT_NAME", "pod"],
      ["ERR_CONTENTS_NOT_JSON", 'init container "setup"'],
    ]);
  });

  it("names every place sharing a credspec in one refusal, and answers both the access refusal and the missing credspec", () => {
    const pod = buildPod({
      windowsOptions: expanded1,
      containers: [{ name: "app", windowsOptions: expanded1 }],
      initContainers: [{ name: "setup", windowsOptions: expanded1 }],
    });
    const decision = authorize(create(pod), {
      credspecs: { webapp1: new AdmissionError("not found", { code: "ERR_CREDSPEC_NOT_FOUND" }) },
      access: { webapp1: false },
    });
    expectDenied(decision, [
      ["ERR_CREDSPEC_NOT_ALLOWED", 403],
      ["ERR_CREDSPEC_NOT_FOUND", 422],
    ]);
    expect(decision.allowed ? undefined : decision.errors[0]?.where?.place).toBe(
      'pod, container "app", init container "setup"',
    );
  });

  it("refuses more than 16 distinct credspecs (422) without loading anything", () => {
    const containers = Array.from({ length: 17 }, (_, i) => ({
      name: `c${i}`,
      windowsOptions: { gmsaCredentialSpecName: `spec-${i}`, gmsaCredentialSpec: "{}" },
    }));
    const plan = planAuthorize(create(buildPod({ containers })), deny);
    expect(plan.load.access).toEqual([]);
    expectDenied(
      decideAuthorize(plan, load(plan.load, {})),
      [["ERR_TOO_MANY_REFERENCES", 422]],
      "17 distinct credspecs",
    );
  });

  it("judges alpha annotations: contents without a name, a name without contents, absent containers, repeated keys (422)", () => {
    const keys = annotationKeys();
    const pod = buildPod({
      annotations: {
        [keys.contentsKey]: "{}",
        [annotationKeys("ghost").nameKey]: "webapp1",
        [annotationKeys("app").nameKey]: "webapp1",
        [annotationKeys("app").contentsKey]: '{"a":1,"a":1}',
      },
    });
    const decision = authorize(create(pod), {});
    expect(decision.allowed ? [] : decision.errors.map((e) => e.code).sort()).toEqual(
      [
        "ERR_CONTENTS_WITHOUT_NAME",
        "ERR_DUPLICATE_CREDSPEC_KEY",
        "ERR_NAME_WITHOUT_CONTENTS",
        "ERR_UNKNOWN_CONTAINER",
      ].sort(),
    );
  });

  it("warns of a container whose GMSA runs as an account that does not use it on the network, and allows", () => {
    const pod = podWithGmsaAt("pod", { ...expanded1, runAsUserName: "ContainerUser" });
    const decision = authorize(create(pod));
    expect(decision.allowed).toBe(true);
    expect(decision.warnings).toEqual([
      expect.stringContaining('container "app" uses GMSA credspec "webapp1" but runs as "ContainerUser"'),
      expect.stringContaining('init container "setup" uses GMSA credspec "webapp1" but runs as "ContainerUser"'),
    ]);
  });

  it("keeps a long authorizer reason short", () => {
    const decision = authorize(create(podWithGmsaAt("pod", expanded1)), {
      ...cluster,
      access: { webapp1: { allowed: false, reason: "r".repeat(5000) } },
    });
    expect(decision.allowed ? "" : decision.errors[0]?.message.length).toBeLessThan(400);
  });

  it("fails closed (500) when a planned fact is missing: our own bug", () => {
    const plan = planAuthorize(create(podWithGmsaAt("pod", expanded1)), deny);
    expectDenied(decideAuthorize(plan, { credspecs: new Map(), access: [new Map()], randomBytes: new Uint8Array() }), [
      ["ERR_INTERNAL", 500],
    ]);
  });
});

describe("authorize: updates", () => {
  it.each(PLACES)("refuses a change of the GMSA on the $kind (400) without loading anything", ({ kind, label }) => {
    const plan = planAuthorize(update(podWithGmsaAt(kind, expanded1), podWithGmsaAt(kind, expanded2)), deny);
    expect(plan.load.access).toEqual([]);
    expectDenied(
      decideAuthorize(plan, load(plan.load, {})),
      [["ERR_GMSA_CHANGED", 400]],
      label,
      'credspec name changed from "webapp1" to "webapp2"',
    );
  });

  it.each(PLACES)(
    "allows an update of other fields with the GMSA on the $kind, without loading anything",
    ({ kind }) => {
      const before = podWithGmsaAt(kind, expanded1);
      const after = structuredClone(before);
      after.metadata = { ...after.metadata, labels: { changed: "yes" } };
      const plan = planAuthorize(update(before, after), deny);
      expect(plan.load.access).toEqual([]);
      expect(decideAuthorize(plan, load(plan.load, {}))).toEqual({
        allowed: true,
        auditAnnotations: { decision: "allowed", credspecs: "webapp1" },
      });
    },
  );

  it.each(PLACES)(
    "always: the requester of an update of the pod with the GMSA on the $kind must use it (403); nothing else is loaded",
    ({ kind, label }) => {
      const before = podWithGmsaAt(kind, expanded1);
      const plan = planAuthorize(update(before, structuredClone(before)), { ...deny, requestingUser: "always" });
      expect(plan.load).toEqual({
        credspecs: new Set(),
        access: [{ subject: { namespace: "ns1", user: ALICE }, names: new Set(["webapp1"]) }],
        randomBytes: 0,
      });
      expectDenied(
        decideAuthorize(plan, load(plan.load, { userAccess: { webapp1: false } })),
        [["ERR_CREDSPEC_NOT_ALLOWED", 403]],
        `${label}: user "alice"`,
        '"webapp1"',
      );
      expect(decideAuthorize(plan, load(plan.load, { userAccess: { webapp1: true } })).allowed).toBe(true);
    },
  );

  it("reads an alpha name annotation as a name and a contents annotation as contents", () => {
    const keys = annotationKeys();
    const before = buildPod({
      annotations: { [keys.nameKey]: "webapp1", [keys.contentsKey]: inlined(WEBAPP1_CREDSPEC) },
    });
    const renamed = buildPod({
      annotations: { [keys.nameKey]: "webapp2", [keys.contentsKey]: inlined(WEBAPP1_CREDSPEC) },
    });
    const named = authorize(update(before, renamed), {});
    expectDenied(
      named,
      [["ERR_GMSA_CHANGED", 400]],
      `annotation "${keys.nameKey}": GMSA settings cannot change on update (credspec name changed from "webapp1" to "webapp2")`,
    );
    expect(named.allowed ? undefined : named.errors[0]?.where).toEqual({
      place: `annotation "${keys.nameKey}"`,
      credSpecName: "webapp2",
    });
    const recontented = buildPod({
      annotations: { [keys.nameKey]: "webapp1", [keys.contentsKey]: inlined(WEBAPP2_CREDSPEC) },
    });
    const contents = authorize(update(before, recontented), {});
    expectDenied(
      contents,
      [["ERR_GMSA_CHANGED", 400]],
      `annotation "${keys.contentsKey}": GMSA settings cannot change on update (contents changed)`,
    );
    expect(contents.allowed ? undefined : contents.errors[0]?.where).toEqual({
      place: `annotation "${keys.contentsKey}"`,
    });
  });
});

describe("authorize: ephemeral containers (UPDATE of pods/ephemeralcontainers)", () => {
  const before = buildPod({
    windowsOptions: expanded2,
    ephemeralContainers: [{ name: "debugger-1", windowsOptions: expanded2 }],
  });
  const adding = (container: { name: string; windowsOptions?: WindowsOptions }) => {
    const after = structuredClone(before);
    after.spec!.ephemeralContainers!.push({
      name: container.name,
      ...(container.windowsOptions ? { securityContext: { windowsOptions: container.windowsOptions } } : {}),
    });
    return update(before, after, "ephemeralcontainers");
  };

  it("judges a new ephemeral container naming a credspec like a create, and only it", () => {
    const plan = planAuthorize(adding({ name: "debugger-2", windowsOptions: expanded1 }), deny);
    expect(plan.load.credspecs).toEqual(new Set(["webapp1"]));
    expectDenied(
      decideAuthorize(plan, load(plan.load, { ...cluster, access: { webapp1: false } })),
      [["ERR_CREDSPEC_NOT_ALLOWED", 403]],
      'ephemeral container "debugger-2"',
    );
  });

  it("refuses a change of an existing ephemeral container (400)", () => {
    const review = adding({ name: "debugger-2" });
    review.pod.spec!.ephemeralContainers![0]!.securityContext!.windowsOptions = expanded1;
    expectDenied(authorize(review, {}), [["ERR_GMSA_CHANGED", 400]], 'ephemeral container "debugger-1"');
  });

  it("ignores alpha annotations the stored pod holds: they were judged with the pod", () => {
    const stored = buildPod({
      annotations: { [annotationKeys("ghost").nameKey]: "webapp1", [annotationKeys().nameKey]: "other" },
      windowsOptions: expanded2,
    });
    const after = structuredClone(stored);
    after.spec!.ephemeralContainers = [{ name: "debugger", securityContext: { windowsOptions: expanded1 } }];
    const decision = authorize(update(stored, after, "ephemeralcontainers"));
    expect(decision).toEqual({ allowed: true, auditAnnotations: { decision: "allowed", credspecs: "webapp1" } });
  });

  describe.each(["off", "ephemeral", "always"] as const)(
    "REVIEW_REQUESTING_USER=%s: a new ephemeral container without GMSA settings of its own",
    (requestingUser) => {
      const reviewsUser = requestingUser !== "off";
      const inheriting = adding({ name: "debugger-2", windowsOptions: { runAsUserName: "ContainerAdministrator" } });

      it("is judged under the pod-level GMSA, which the kubelet gives it: the service account's use, the credspec, the contents", () => {
        const plan = planAuthorize(inheriting, { ...deny, requestingUser });
        expect(plan.load.credspecs).toEqual(new Set(["webapp2"]));
        expect(plan.load.access.map((a) => ("user" in a.subject ? "user" : "service account"))).toEqual(
          reviewsUser ? ["service account", "user"] : ["service account"],
        );
        expectDenied(
          decideAuthorize(
            plan,
            load(plan.load, { ...cluster, access: { webapp2: false }, userAccess: { webapp2: true } }),
          ),
          [["ERR_CREDSPEC_NOT_ALLOWED", 403]],
          'ephemeral container "debugger-2" (pod-level GMSA): service account "sa1"',
          '"webapp2"',
        );
      });

      it(
        reviewsUser
          ? "is refused when the requester may not use the pod's credspec (403), naming both"
          : "never reviews the requester",
        () => {
          const decision = authorize(inheriting, { ...cluster, userAccess: { webapp2: false } }, { requestingUser });
          if (!reviewsUser) {
            expect(decision).toMatchObject({
              allowed: true,
              auditAnnotations: { decision: "allowed", credspecs: "webapp2" },
            });
            return;
          }
          expectDenied(
            decision,
            [["ERR_CREDSPEC_NOT_ALLOWED", 403]],
            'ephemeral container "debugger-2" (pod-level GMSA): user "alice" is not allowed to use GMSACredentialSpec "webapp2"',
          );
          expect(decision.auditAnnotations).toEqual({
            decision: "denied",
            credspecs: "webapp2",
            codes: "ERR_CREDSPEC_NOT_ALLOWED",
          });
        },
      );

      it("is allowed when everyone reviewed may use the pod's credspec, the audit annotations naming it", () => {
        const decision = authorize(inheriting, { ...cluster, userAccess: { webapp2: true } }, { requestingUser });
        expect(decision).toMatchObject({
          allowed: true,
          auditAnnotations: { decision: "allowed", credspecs: "webapp2" },
        });
      });
    },
  );

  it("needs nothing for a new ephemeral container in a pod without a pod-level GMSA", () => {
    const plain = buildPod({ ephemeralContainers: [] });
    const after = structuredClone(plain);
    after.spec!.ephemeralContainers = [{ name: "debugger" }];
    const plan = planAuthorize(update(plain, after, "ephemeralcontainers"), { ...deny, requestingUser: "always" });
    expect(plan.load.access).toEqual([]);
    expect(decideAuthorize(plan, load(plan.load, {}))).toEqual({
      allowed: true,
      auditAnnotations: { decision: "allowed" },
    });
  });
});

describe("authorize: the requesting user", () => {
  it.each(PLACES)(
    "always: refuses a create whose requester may not use the credspec on the $kind (403), without comparing contents",
    ({ kind, label }) => {
      const pod = podWithGmsaAt(kind, {
        gmsaCredentialSpecName: "webapp1",
        gmsaCredentialSpec: inlined(WEBAPP2_CREDSPEC),
      });
      const denied = authorize(
        create(pod),
        { ...cluster, userAccess: { webapp1: false } },
        { requestingUser: "always" },
      );
      expectDenied(denied, [["ERR_CREDSPEC_NOT_ALLOWED", 403]], `${label}: user "alice"`, '"webapp1"');
      expect(JSON.stringify(denied)).not.toContain("MachineAccountName");
      expectDenied(
        authorize(create(pod), { ...cluster, userAccess: { webapp1: true } }, { requestingUser: "always" }),
        [["ERR_CONTENTS_MISMATCH", 422]],
      );
    },
  );

  it("always: says once what failed when the service account's and the requester's reviews fail alike (500)", () => {
    const failed = new AdmissionError("access review failed: API server unreachable", { code: "ERR_KUBE_API" });
    const world = { ...cluster, access: { webapp1: failed }, userAccess: { webapp1: failed } };
    const decision = authorize(create(podWithGmsaAt("container", expanded1)), world, { requestingUser: "always" });
    expectDenied(decision, [["ERR_KUBE_API", 500]], "access review failed");
  });

  it("ephemeral: never reviews the requester of a create", () => {
    const plan = planAuthorize(create(podWithGmsaAt("container", expanded1)), { ...deny, requestingUser: "ephemeral" });
    expect(plan.load.access.map((a) => a.subject)).toEqual([{ namespace: "ns1", serviceAccount: "sa1" }]);
  });

  it("refuses a review without a requester when one must be reviewed (400)", () => {
    const decision = authorize(create(podWithGmsaAt("pod", expanded1), null), {}, { requestingUser: "always" });
    expectDenied(decision, [["ERR_INVALID_REVIEW", 400]], "request.userInfo.username is missing");
  });
});

describe("authorize: what is not a pod create or update", () => {
  it.each([{ object: "pod", operation: "DELETE" }, CONNECT_EXEC] as const)(
    "allows $operation without loading anything or annotating",
    (review) => {
      const plan = planAuthorize(review, deny);
      expect(plan.load.access).toEqual([]);
      expect(decideAuthorize(plan, load(plan.load, {}))).toEqual({ allowed: true });
    },
  );

  it("allows another kind unchanged, with a warning naming it", () => {
    const decision = authorize({ object: "other", group: "apps", version: "v1", kind: "Deployment" }, {});
    expect(decision).toEqual({
      allowed: true,
      warnings: [expect.stringContaining("apps/v1 Deployment was allowed unchanged")],
    });
  });

  it("refuses a review whose pod cannot be read with its error (400), annotated", () => {
    const decision = authorize(
      { object: "invalid", error: new AdmissionError("request.object is missing", { code: "ERR_INVALID_REVIEW" }) },
      {},
    );
    expectDenied(decision, [["ERR_INVALID_REVIEW", 400]], "request.object is missing");
    expect(decision.auditAnnotations).toEqual({ decision: "denied", codes: "ERR_INVALID_REVIEW" });
  });
});

describe("authorize: ENFORCEMENT=warn", () => {
  it("allows what it would deny, with a warning and the would-deny audit annotation naming code, place and credspec", () => {
    const decision = authorize(
      create(podWithGmsaAt("container", expanded1)),
      { ...cluster, access: { webapp1: false } },
      { enforcement: "warn" },
    );
    expect(decision).toEqual({
      allowed: true,
      warnings: [
        'ENFORCEMENT=warn: gmsa-webhooks would deny this request: 403 ERR_CREDSPEC_NOT_ALLOWED at container "app" (credspec "webapp1")',
      ],
      auditAnnotations: {
        decision: "would-deny",
        credspecs: "webapp1",
        codes: "ERR_CREDSPEC_NOT_ALLOWED",
        "would-deny": '403 ERR_CREDSPEC_NOT_ALLOWED at container "app" (credspec "webapp1")',
      },
    });
  });

  it("never blocks a failure of ours (500) either", () => {
    const plan = planAuthorize(create(podWithGmsaAt("pod", expanded1)), { ...deny, enforcement: "warn" });
    const decision = decideAuthorize(plan, {
      credspecs: new Map(),
      access: [new Map()],
      randomBytes: new Uint8Array(),
    });
    expect(decision).toMatchObject({
      allowed: true,
      auditAnnotations: { decision: "would-deny", codes: "ERR_INTERNAL" },
    });
  });
});
