/**
 * The GMSA rules as one table of cases, run twice: against the policy (policy.test.ts: plan, load, decide) and
 * through the app (app.test.ts: HTTP through createApp). A case is a review, a fake world (the fake client's
 * credspecs, who may use them, failures) and the expected reply; policy rules are asserted here and only here.
 */
import { expect } from "vitest";
import type { AdmissionReviewResponse, Container, Pod, WindowsOptions } from "../../../shared/admission/review.ts";
import { FUNCTION_NAMES, readConfig, type FunctionName } from "../../../shared/config/index.ts";
import { AdmissionError } from "../../../shared/errors.ts";
import {
  createRandomHostname,
  MAX_CREDSPEC_CONTENTS_BYTES,
  MAX_INLINED_CONTENTS_PER_POD,
} from "../../../shared/policy/expand.ts";
import type { PolicySettings } from "../../../shared/policy/facts.ts";
import { annotationKeys } from "../../../shared/policy/pod-gmsa.ts";
import { fixedRandomBytes } from "../../support/app.ts";
import { WITHOUT_CONTENTS, type FakeGmsaClient, type FakeGmsaClientOptions } from "../../support/fake-gmsa-client.ts";
import {
  buildPod,
  inlined,
  PLACES,
  podWithGmsaAt,
  WEBAPP1_CREDSPEC,
  WEBAPP2_CREDSPEC,
  type PlaceCase,
} from "../../support/pods.ts";
import { applyReplyPatch, type ReviewOptions } from "../../support/reviews.ts";

export interface RuleCase {
  name: string;
  fn: FunctionName;
  /** `request.object`: a CREATE of it in "ns1" by user "admin" unless `review` says otherwise. */
  pod: unknown;
  review?: ReviewOptions;
  /** Merged over {@link DEFAULT_WORLD}. */
  world?: FakeGmsaClientOptions;
  settings?: Partial<PolicySettings>;
  expect: Allowed | Denied;
  /** The calls the fake client saw; unset parts are not checked. */
  calls?: Calls;
}

interface Allowed {
  allowed: true;
  /** The pod after the reply's patch; unset: no patch at all. */
  pod?: Pod;
  /** Each warning, as a substring, in order; unset: no warnings. */
  warnings?: string[];
  /** The audit annotations, exactly (undefined: none); unset: not checked for authorize, none for expand. */
  audit?: Record<string, string> | undefined;
}

interface Denied {
  allowed: false;
  status: number;
  message?: string[];
  notInMessage?: string[];
  /** Said exactly once in the message. */
  once?: string[];
  warnings?: string[];
  audit?: Record<string, string>;
}

interface Calls {
  total?: number;
  /** getCredSpecContents calls by name. */
  contents?: Record<string, number>;
  /** Service-account access queries, as `namespace/serviceAccount/credspec`, in call order. */
  access?: string[];
  userAccess?: { namespace: string; user: unknown; credSpecName: string }[];
  podReads?: string[];
}

export const DEFAULT_UID = "705ab4f5-6393-11e8-b7cc-42010a800002";

/** Credspecs webapp1, webapp2 and `empty` (no credspec field), all usable by service account sa1 in ns1. */
export const DEFAULT_WORLD: FakeGmsaClientOptions = {
  credspecs: { webapp1: WEBAPP1_CREDSPEC, webapp2: WEBAPP2_CREDSPEC, empty: WITHOUT_CONTENTS },
  allowed: ["webapp1", "webapp2", "empty"].map((credSpecName) => ({
    namespace: "ns1",
    serviceAccount: "sa1",
    credSpecName,
  })),
  denyReason: "RBAC: no rule allows use",
};

export const DEFAULT_SETTINGS: PolicySettings = { randomHostname: false, requestingUser: "off", enforcement: "deny" };

/** Secret-looking values of the credspecs: no denial, and no authorize reply, may carry them. */
export const CONTENT_MARKERS = ["S-1-5-21", "244818ae", "CONTOSO", "contoso.com"];
/** In every plain Error a case's client throws: neither replies nor logs may carry it. */
export const LEAK_MARKER = "token abc";

export function expectRuleOutcome(rule: RuleCase, reply: AdmissionReviewResponse, gmsa: FakeGmsaClient): void {
  const { response } = reply;
  const want = rule.expect;
  expect(reply.apiVersion).toBe(rule.review?.apiVersion ?? "admission.k8s.io/v1");
  expect(response.uid).toBe(rule.review?.uid ?? DEFAULT_UID);
  expect(response.allowed).toBe(want.allowed);
  if (want.allowed) {
    expect(response.status).toBeUndefined();
    if (want.pod === undefined) expect(response).not.toHaveProperty("patch");
    else expect(applyReplyPatch(rule.pod as Pod, reply)).toEqual(want.pod);
  } else {
    expect(response).not.toHaveProperty("patch");
    expect(response.status?.code).toBe(want.status);
    for (const text of want.message ?? []) expect(response.status?.message).toContain(text);
    for (const text of want.notInMessage ?? []) expect(response.status?.message).not.toContain(text);
    for (const text of want.once ?? []) expect(response.status?.message?.split(text)).toHaveLength(2);
  }
  if (response.patch === undefined) expect(response).not.toHaveProperty("patchType");
  else expect(response.patchType).toBe("JSONPatch");
  if (rule.fn === "authorize" || !response.allowed)
    for (const marker of [...CONTENT_MARKERS, LEAK_MARKER]) expect(JSON.stringify(reply)).not.toContain(marker);
  expect(response.warnings?.length).toBe(want.warnings?.length);
  for (const [i, text] of (want.warnings ?? []).entries()) expect(response.warnings?.[i]).toContain(text);
  if (rule.fn === "expand" || "audit" in want) expect(response.auditAnnotations).toEqual(want.audit);

  const calls = rule.calls ?? {};
  if (calls.total !== undefined) expect(gmsa.callCount()).toBe(calls.total);
  if (calls.contents !== undefined) expect(Object.fromEntries(gmsa.contentsCalls)).toEqual(calls.contents);
  if (calls.access !== undefined)
    expect(gmsa.accessQueries.map((q) => `${q.namespace}/${q.serviceAccount}/${q.credSpecName}`)).toEqual(calls.access);
  if (calls.userAccess !== undefined) expect(gmsa.userAccessQueries).toEqual(calls.userAccess);
  if (calls.podReads !== undefined) expect(gmsa.podReads).toEqual(calls.podReads);
}

const expanded1: WindowsOptions = { gmsaCredentialSpecName: "webapp1", gmsaCredentialSpec: inlined(WEBAPP1_CREDSPEC) };
const expanded2: WindowsOptions = { gmsaCredentialSpecName: "webapp2", gmsaCredentialSpec: inlined(WEBAPP2_CREDSPEC) };
const named1: WindowsOptions = { gmsaCredentialSpecName: "webapp1" };
/** webapp1 named with webapp2's contents, and the other way round. */
const mismatched1: WindowsOptions = { ...expanded1, gmsaCredentialSpec: inlined(WEBAPP2_CREDSPEC) };
const mismatched2: WindowsOptions = { ...expanded2, gmsaCredentialSpec: inlined(WEBAPP1_CREDSPEC) };
const ALICE = {
  username: "alice",
  uid: "u-1",
  groups: ["devs", "system:authenticated"],
  extra: { "scopes.example.com": ["debug"] },
};
const aliceMay = (...names: string[]) =>
  names.map((credSpecName) => ({ namespace: "ns1", username: "alice", credSpecName }));
const aliceAsked = (...names: string[]) =>
  names.map((credSpecName) => ({ namespace: "ns1", user: ALICE, credSpecName }));
const sa1May = (...names: string[]) =>
  names.map((credSpecName) => ({ namespace: "ns1", serviceAccount: "sa1", credSpecName }));
/** Contents equal to webapp1's once parsed, whose first, repeated key names another gMSA. */
const SMUGGLED = `{"ActiveDirectoryConfig":{"GroupManagedServiceAccounts":[{"Name":"Other","Scope":"x"}]},${inlined(WEBAPP1_CREDSPEC).slice(1)}`;
/** A denial answered `status` whose message says each of `message`; `more`: what else it must (not) carry. */
const denied = (
  status: number,
  message: string[] = [],
  more: Omit<Denied, "allowed" | "status" | "message"> = {},
): Denied => ({ allowed: false, status, message, ...more });
/** The audit annotations of a denial: the credspecs judged (none: "") and the codes, comma-joined. */
const deniedAudit = (credspecs: string, codes: string) => ({
  decision: "denied",
  ...(credspecs === "" ? {} : { credspecs }),
  codes,
});
/** A HostProcess container's settings, and the host network such a pod needs. */
const HOST_PROCESS = { hostProcess: true, runAsUserName: "NT AUTHORITY\\SYSTEM" };
const HOST_NETWORK = { spec: { hostNetwork: true } };
const kubeDown = new AdmissionError("the API server answered 503 ServiceUnavailable", { code: "ERR_KUBE_API" });
const failing = (name: string) => (_call: string, credSpecName: string) =>
  credSpecName === name ? new AdmissionError("503", { code: "ERR_KUBE_API" }) : undefined;

/** A case of a section of one function's cases: `fn` is set only where it is the other function or each in turn. */
type SectionCase = Omit<RuleCase, "fn"> & { fn?: FunctionName };

function casesOf(fn: FunctionName, cases: SectionCase[]): RuleCase[] {
  return cases.map((rule) => ({ fn, ...rule }));
}

/** A GMSA naming `name`; for authorize with contents too, as expand would leave them, so only the name can be wrong. */
const namedFor = (fn: FunctionName, name: string): WindowsOptions => ({
  gmsaCredentialSpecName: name,
  ...(fn === "authorize" ? { gmsaCredentialSpec: "{}" } : {}),
});

/** A pod with `windowsOptions` on itself, six containers and three init containers. */
const inTenPlaces = (windowsOptions: WindowsOptions) =>
  buildPod({
    windowsOptions,
    containers: Array.from({ length: 6 }, (_, i) => ({ name: `c${i}`, windowsOptions })),
    initContainers: Array.from({ length: 3 }, (_, i) => ({ name: `i${i}`, windowsOptions })),
  });

/** `make` at each of the three places, named for it; `keys` are the place's alpha annotation keys. */
function atEachPlace(
  make: (place: PlaceCase & { keys: ReturnType<typeof annotationKeys> }) => SectionCase,
): SectionCase[] {
  return PLACES.map((place) => {
    const container = { pod: undefined, container: "app", "init container": "setup" }[place.kind];
    const rule = make({ ...place, keys: annotationKeys(container) });
    return { ...rule, name: `${rule.name} (GMSA on the ${place.kind})` };
  });
}

const authorizeAtEachPlace = casesOf("authorize", [
  ...atEachPlace(({ kind }) => ({
    name: "authorize allows a pod whose service account may use the credspec and whose contents match",
    pod: podWithGmsaAt(kind, expanded1),
    expect: { allowed: true, audit: { decision: "allowed", credspecs: "webapp1" } },
    calls: { contents: { webapp1: 1 }, access: ["ns1/sa1/webapp1"], total: 2 },
  })),
  ...atEachPlace(({ kind, label }) => ({
    name: "authorize denies a pod whose service account may not use the credspec (403), with the authorizer's reason",
    pod: podWithGmsaAt(kind, expanded1),
    world: { allowed: [] },
    expect: denied(403, [label, '"webapp1"', '"sa1"', '"ns1"', "RBAC: no rule allows use"], {
      audit: deniedAudit("webapp1", "ERR_CREDSPEC_NOT_ALLOWED"),
    }),
  })),
  ...atEachPlace(({ kind, label }) => ({
    name: "authorize denies contents that differ from the credspec (422), naming only the differing keys",
    pod: podWithGmsaAt(kind, mismatched1),
    expect: denied(
      422,
      [label, '"webapp1"', "DomainJoinConfig.MachineAccountName", "ActiveDirectoryConfig.GroupManagedServiceAccounts"],
      { notInMessage: ["WebApp"] },
    ),
  })),
  ...atEachPlace(({ kind }) => ({
    name: "authorize allows matching contents in another key order and layout",
    pod: podWithGmsaAt(kind, {
      gmsaCredentialSpecName: "webapp1",
      gmsaCredentialSpec: JSON.stringify(Object.fromEntries(Object.entries(WEBAPP1_CREDSPEC).reverse()), null, 2),
    }),
    expect: { allowed: true },
  })),
  ...atEachPlace(({ kind, label }) => ({
    name: 'authorize denies contents whose types differ (1 vs "1") (422)',
    pod: podWithGmsaAt(kind, { gmsaCredentialSpecName: "num", gmsaCredentialSpec: '{"n":1}' }),
    world: { credspecs: { num: { n: "1" } }, allowed: sa1May("num") },
    expect: { allowed: false, status: 422, message: [label, '"num"', "differing keys: n"] },
  })),
  ...atEachPlace(({ kind, label }) => ({
    name: "authorize denies contents whose arrays are in another order (422)",
    pod: podWithGmsaAt(kind, {
      gmsaCredentialSpecName: "webapp1",
      gmsaCredentialSpec: inlined({
        ...WEBAPP1_CREDSPEC,
        ActiveDirectoryConfig: {
          GroupManagedServiceAccounts: [
            ...WEBAPP1_CREDSPEC.ActiveDirectoryConfig.GroupManagedServiceAccounts,
          ].reverse(),
        },
      }),
    }),
    expect: denied(422, [label, "ActiveDirectoryConfig.GroupManagedServiceAccounts[0].Scope"]),
  })),
  ...FUNCTION_NAMES.flatMap((fn) =>
    (
      [
        ["an unknown credspec", "missing"],
        ["a credspec resource without a credspec field", "empty"],
      ] as const
    ).flatMap(([what, name]) =>
      atEachPlace(({ kind, label }) => ({
        name: `${fn} denies ${what} (422), naming the place and the credspec`,
        fn,
        pod: podWithGmsaAt(kind, namedFor(fn, name)),
        world: { allowed: sa1May("missing", "empty") },
        expect: { allowed: false, status: 422, message: [`${label}: `, `"${name}"`] },
      })),
    ),
  ),
  ...atEachPlace(({ kind, label }) => ({
    name: "authorize denies contents without a name (422) without any API call",
    pod: podWithGmsaAt(kind, { gmsaCredentialSpec: inlined(WEBAPP1_CREDSPEC) }),
    expect: { allowed: false, status: 422, message: [label, "without a credspec name"] },
    calls: { total: 0 },
  })),
  ...atEachPlace(({ kind, label }) => ({
    name: "authorize denies a name without contents (422): expand did not run; no API call",
    pod: podWithGmsaAt(kind, named1),
    expect: { allowed: false, status: 422, message: [label, '"webapp1"', "never inlined"] },
    calls: { total: 0 },
  })),
  ...atEachPlace(({ kind, label }) => ({
    name: "authorize denies contents that are not JSON (422) without quoting them and without any API call",
    pod: podWithGmsaAt(kind, { gmsaCredentialSpecName: "webapp1", gmsaCredentialSpec: "{password: hunter2" }),
    expect: { allowed: false, status: 422, message: [label, '"webapp1"', "not valid JSON"], notInMessage: ["hunter2"] },
    calls: { total: 0 },
  })),
  ...atEachPlace(({ kind, label }) => ({
    name: "authorize denies contents whose repeated key hides another gMSA behind an equal parse (422), loading nothing",
    pod: podWithGmsaAt(kind, { gmsaCredentialSpecName: "webapp1", gmsaCredentialSpec: SMUGGLED }),
    expect: denied(422, [label, '"webapp1"', 'repeat the key "ActiveDirectoryConfig"'], { notInMessage: ["Other"] }),
    calls: { total: 0 },
  })),
  ...atEachPlace(({ kind, label }) => ({
    name: "authorize names a repeated key by its dotted path (422)",
    pod: podWithGmsaAt(kind, {
      gmsaCredentialSpecName: "webapp1",
      gmsaCredentialSpec: '{"a":[{"b":1},{"b":1,"b":2}]}',
    }),
    expect: { allowed: false, status: 422, message: [label, 'repeat the key "a[1].b"'] },
    calls: { total: 0 },
  })),
  ...[
    ["may not use it", {}, 403],
    ["whose review fails", { fail: () => kubeDown }, 500],
  ].flatMap(([what, world, status]) =>
    atEachPlace(({ kind, label }) => ({
      name: `authorize never compares contents for a credspec the service account ${what as string} (${status as number})`,
      pod: podWithGmsaAt(kind, mismatched1),
      world: { allowed: [], ...(world as FakeGmsaClientOptions) },
      expect: denied(status as number, [label], { notInMessage: ["MachineAccountName", "differ"] }),
    })),
  ),
  ...atEachPlace(({ kind, label }) => ({
    name: "REVIEW_REQUESTING_USER=always never compares contents for a credspec the requester may not use (403)",
    pod: podWithGmsaAt(kind, mismatched1),
    review: { userInfo: ALICE },
    settings: { requestingUser: "always" },
    expect: { allowed: false, status: 403, message: [`${label}: user "alice"`], notInMessage: ["MachineAccountName"] },
  })),
  ...atEachPlace(({ kind }) => ({
    name: "REVIEW_REQUESTING_USER=always compares the contents once the requester may use the credspec (422)",
    pod: podWithGmsaAt(kind, mismatched1),
    review: { userInfo: ALICE },
    settings: { requestingUser: "always" },
    world: { allowedUsers: aliceMay("webapp1") },
    expect: denied(422, ["MachineAccountName"], { audit: deniedAudit("webapp1", "ERR_CONTENTS_MISMATCH") }),
  })),
  ...FUNCTION_NAMES.flatMap((fn) =>
    ["WebApp1", "web_app", "-web", "a".repeat(254), "webapp1/../x", "../../api/v1/secrets"].flatMap((name) =>
      atEachPlace(({ kind, label }) => ({
        name: `${fn} denies the invalid credspec name ${JSON.stringify(name.slice(0, 20))} (422) without any API call`,
        fn,
        pod: podWithGmsaAt(kind, namedFor(fn, name)),
        expect: { allowed: false, status: 422, message: [label, "not a valid DNS-1123 subdomain"] },
        calls: { total: 0 },
      })),
    ),
  ),
  ...FUNCTION_NAMES.flatMap((fn) =>
    (
      [
        ["ERR_KUBE_API", kubeDown, ["the API server answered 503"]],
        ["a plain Error", new Error(`ECONNRESET talking to https://10.0.0.1:6443 with ${LEAK_MARKER}`), []],
      ] as const
    ).flatMap(([what, error, message]) =>
      atEachPlace(({ kind, label }) => ({
        name: `${fn} fails closed on ${what} from ${fn === "authorize" ? "the access review" : "the client"} (500)`,
        fn,
        pod: podWithGmsaAt(kind, fn === "authorize" ? expanded1 : named1),
        // authorize loads the contents, then the access review fails.
        world: { fail: (call) => (fn === "expand" || call === "canUseCredSpec" ? error : undefined) },
        expect: { allowed: false, status: 500, message: [label, ...message] },
      })),
    ),
  ),
  ...atEachPlace(({ kind }) => ({
    name: "authorize treats a HostProcess pod by the same rules",
    pod: podWithGmsaAt(kind, { ...expanded1, ...HOST_PROCESS }, HOST_NETWORK),
    expect: { allowed: true },
  })),
  ...atEachPlace(({ kind, label }) => ({
    name: "authorize denies a HostProcess pod whose service account may not use the credspec (403)",
    pod: podWithGmsaAt(kind, { ...expanded1, hostProcess: true }),
    world: { allowed: [] },
    expect: { allowed: false, status: 403, message: [label] },
  })),
  ...(
    [
      [
        "the name",
        { ...expanded1, gmsaCredentialSpecName: "webapp2" },
        'credspec name changed from "webapp1" to "webapp2"',
      ],
      ["the contents", mismatched1, "contents changed"],
      ["the name and the contents", expanded2, 'credspec name changed from "webapp1" to "webapp2", contents changed'],
      ["the removal of the GMSA", {}, 'credspec name "webapp1" removed, contents removed'],
    ] as const
  ).flatMap(([what, after, change]) =>
    atEachPlace(({ kind, label }) => ({
      name: `authorize denies an UPDATE of ${what} (400) without any API call`,
      pod: podWithGmsaAt(kind, after),
      review: { operation: "UPDATE", oldObject: podWithGmsaAt(kind, expanded1) },
      expect: { allowed: false, status: 400, message: [`${label}: GMSA settings cannot change on update (${change})`] },
      calls: { total: 0 },
    })),
  ),
  ...atEachPlace(({ kind }) => ({
    name: "authorize allows an UPDATE of unrelated fields without any API call",
    pod: podWithGmsaAt(kind, expanded1, {
      annotations: { "example.com/restartedAt": "now" },
      spec: { activeDeadlineSeconds: 60 },
    }),
    review: { operation: "UPDATE", oldObject: podWithGmsaAt(kind, expanded1) },
    expect: { allowed: true, audit: { decision: "allowed", credspecs: "webapp1" } },
    calls: { total: 0 },
  })),
  ...atEachPlace(({ kind, label }) => ({
    name: "authorize warns when a GMSA container runs as another account, and still allows",
    pod: podWithGmsaAt(kind, { ...expanded1, runAsUserName: "ContainerUser" }),
    expect: {
      allowed: true,
      warnings: (kind === "pod" ? ['container "app"', 'init container "setup"'] : [label]).map(
        (where) => `${where} uses GMSA credspec "webapp1" but runs as "ContainerUser"`,
      ),
    },
  })),
]);

const alpha = (keys: { nameKey: string; contentsKey: string }, name: string, contents: string) => ({
  [keys.nameKey]: name,
  [keys.contentsKey]: contents,
});
const annotationsApp = annotationKeys("app");
const annotationsPod = annotationKeys();
const ghost = annotationKeys("ghost");
/** A pod with the pod-level GMSA webapp2 and an ephemeral container "debugger-1" whose contents differ from it. */
const existing = buildPod({
  windowsOptions: expanded2,
  ephemeralContainers: [
    { name: "debugger-1", windowsOptions: { gmsaCredentialSpecName: "webapp2", gmsaCredentialSpec: "{}" } },
  ],
});
/** `existing` with a new ephemeral container "debugger-2" with `windowsOptions`, and `more` after it. */
function withDebugger(windowsOptions?: WindowsOptions, ...more: Container[]): Pod {
  const pod = structuredClone(existing);
  pod.spec!.ephemeralContainers!.push(
    { name: "debugger-2", ...(windowsOptions ? { securityContext: { windowsOptions } } : {}) },
    ...more,
  );
  return pod;
}
const RUNS_AS_ADMINISTRATOR =
  'ephemeral container "debugger-2" uses GMSA credspec "webapp2" but runs as "ContainerAdministrator"';
/** Alpha annotations a stored pod may hold that would be refused on a create. */
const STALE_ANNOTATIONS = { [ghost.nameKey]: "webapp1", [annotationsPod.nameKey]: "other" };
const debug: ReviewOptions = { operation: "UPDATE", subResource: "ephemeralcontainers", oldObject: existing };
const debugByAlice: ReviewOptions = { ...debug, userInfo: ALICE };
const execOptions = { apiVersion: "v1", kind: "PodExecOptions", container: "app", command: ["cmd"], stdout: true };
const connectAs = (subResource: string): ReviewOptions => ({
  operation: "CONNECT",
  subResource,
  kind: { group: "", version: "v1", kind: subResource === "exec" ? "PodExecOptions" : "PodAttachOptions" },
  userInfo: ALICE,
});
const gmsaPods = { "ns1/web": buildPod({ windowsOptions: expanded1 }) };

const authorizeOnce = casesOf("authorize", [
  ...["", undefined].map((serviceAccountName): SectionCase => ({
    name: `authorize reviews the service account "default" when serviceAccountName is ${serviceAccountName === "" ? "empty" : "absent"}`,
    pod: (() => {
      const pod = podWithGmsaAt("container", expanded1);
      if (serviceAccountName === undefined) delete pod.spec!.serviceAccountName;
      else pod.spec!.serviceAccountName = "";
      return pod;
    })(),
    world: { allowed: [{ namespace: "ns1", serviceAccount: "default", credSpecName: "webapp1" }] },
    expect: { allowed: true },
    calls: { access: ["ns1/default/webapp1"] },
  })),
  {
    name: "authorize reviews access in the request's namespace",
    pod: podWithGmsaAt("pod", expanded1, { namespace: "team-a" }),
    review: { namespace: "team-a" },
    expect: { allowed: false, status: 403, message: ['namespace "team-a"'] },
    calls: { access: ["team-a/sa1/webapp1"] },
  },
  {
    name: "authorize loads and reviews a credspec named in ten places once each",
    pod: inTenPlaces(expanded1),
    expect: { allowed: true },
    calls: { contents: { webapp1: 1 }, access: ["ns1/sa1/webapp1"] },
  },
  {
    name: "authorize denies every offending place, not just the first",
    pod: buildPod({
      windowsOptions: expanded1,
      containers: [
        { name: "app", windowsOptions: expanded1 },
        { name: "web", windowsOptions: mismatched2 },
      ],
      initContainers: [{ name: "setup", windowsOptions: expanded1 }],
    }),
    world: { allowed: sa1May("webapp2") },
    expect: denied(403, [
      'pod, container "app", init container "setup": service account',
      'container "web": GMSA credspec contents differ',
      '"webapp2"',
    ]),
  },
  ...(
    [
      ["500 over 403 and 422", sa1May("webapp2"), true, 500],
      ["403 over 422", sa1May("webapp2"), false, 403],
      ["422 alone", sa1May("webapp1", "webapp2"), false, 422],
    ] as const
  ).map(([what, allowed, broken, status]): SectionCase => ({
    name: `authorize answers the highest-precedence code when failures mix: ${what}`,
    pod: buildPod({
      containers: [
        { name: "a", windowsOptions: expanded1 },
        { name: "b", windowsOptions: mismatched2 },
        ...(broken
          ? [{ name: "c", windowsOptions: { gmsaCredentialSpecName: "broken", gmsaCredentialSpec: "{}" } }]
          : []),
      ],
    }),
    world: { allowed: [...allowed], fail: failing("broken") },
    expect: { allowed: false, status, message: ['container "b"'] },
  })),
  ...FUNCTION_NAMES.map((fn): RuleCase => ({
    name: `${fn} denies more distinct credspecs than MAX_CREDSPECS_PER_POD, 16 (422) without any API call`,
    fn,
    pod: buildPod({
      containers: Array.from({ length: 17 }, (_, i) => ({ name: `c${i}`, windowsOptions: namedFor(fn, `spec-${i}`) })),
    }),
    expect: { allowed: false, status: 422, message: ["17 distinct credspecs", "at most 16"] },
    calls: { total: 0 },
  })),
  {
    name: "authorize allows a pod without any GMSA reference without any API call",
    pod: buildPod(),
    expect: { allowed: true, audit: { decision: "allowed" } },
    calls: { total: 0 },
  },
  ...[
    "NT AUTHORITY\\SYSTEM",
    "NT AUTHORITY\\NETWORK SERVICE",
    "nt authority\\network service",
    "NT Authority\\System",
  ].map((user): SectionCase => ({
    name: `authorize gives no warning for runAsUserName ${JSON.stringify(user)}`,
    pod: podWithGmsaAt("container", { ...expanded1, runAsUserName: user }),
    expect: { allowed: true, audit: { decision: "allowed", credspecs: "webapp1" } },
  })),
  {
    name: "authorize allows expanded alpha annotations whose contents match the credspec",
    pod: podWithGmsaAt("container", expanded1, {
      annotations: alpha(annotationsApp, "webapp1", inlined(WEBAPP1_CREDSPEC)),
    }),
    expect: { allowed: true },
    calls: { contents: { webapp1: 1 } },
  },
  {
    name: "authorize denies alpha annotation contents that differ from the credspec (422), naming the annotation",
    pod: buildPod({ annotations: alpha(annotationsPod, "webapp1", inlined(WEBAPP2_CREDSPEC)) }),
    expect: { allowed: false, status: 422, message: [annotationsPod.nameKey, '"webapp1"'] },
  },
  {
    name: "authorize denies an alpha annotation that conflicts with its field (422)",
    pod: podWithGmsaAt("container", expanded1, {
      annotations: alpha(annotationsApp, "webapp2", inlined(WEBAPP2_CREDSPEC)),
    }),
    expect: { allowed: false, status: 422, message: [annotationsApp.nameKey, 'container "app"'] },
    calls: { total: 0 },
  },
  {
    name: "authorize denies an alpha annotation naming an absent container (422)",
    pod: buildPod({ annotations: alpha(ghost, "webapp1", inlined(WEBAPP1_CREDSPEC)) }),
    expect: { allowed: false, status: 422, message: ['"ghost"'] },
  },
  {
    name: "authorize judges a new ephemeral container like a create: allowed when the service account may use the credspec",
    pod: withDebugger(expanded1),
    review: debug,
    world: { allowed: sa1May("webapp1") },
    expect: { allowed: true },
    calls: { access: ["ns1/sa1/webapp1"] },
  },
  {
    name: "authorize denies a new ephemeral container whose service account may not use the credspec (403)",
    pod: withDebugger(expanded1),
    review: debug,
    world: { allowed: sa1May("webapp2") },
    expect: { allowed: false, status: 403, message: ['ephemeral container "debugger-2"', '"webapp1"'] },
  },
  {
    name: "authorize denies a new ephemeral container that expand did not fill (422)",
    pod: withDebugger(named1),
    review: debug,
    expect: { allowed: false, status: 422, message: ['ephemeral container "debugger-2"'] },
  },
  {
    name: "authorize denies a change of an existing ephemeral container (400) without any API call",
    pod: (() => {
      const pod = withDebugger({});
      pod.spec!.ephemeralContainers![0]!.securityContext!.windowsOptions = expanded1;
      return pod;
    })(),
    review: debug,
    expect: { allowed: false, status: 400, message: ['ephemeral container "debugger-1"'] },
    calls: { total: 0 },
  },
  {
    name: "authorize allows a new ephemeral container without GMSA in a pod without a pod-level GMSA, without any API call",
    pod: buildPod({ ephemeralContainers: [{ name: "debugger-1", windowsOptions: expanded2 }, { name: "debugger-2" }] }),
    review: {
      ...debug,
      oldObject: buildPod({ ephemeralContainers: [{ name: "debugger-1", windowsOptions: expanded2 }] }),
    },
    expect: { allowed: true },
    calls: { total: 0 },
  },
  {
    name: "authorize judges a new ephemeral container without GMSA of its own under the pod-level GMSA (403)",
    pod: withDebugger({ runAsUserName: "ContainerAdministrator" }),
    review: debug,
    world: { allowed: sa1May("webapp1") },
    expect: denied(403, ['ephemeral container "debugger-2" (pod-level GMSA)', '"webapp2"'], {
      audit: deniedAudit("webapp2", "ERR_CREDSPEC_NOT_ALLOWED"),
      warnings: [RUNS_AS_ADMINISTRATOR],
    }),
    calls: { access: ["ns1/sa1/webapp2"] },
  },
  ...(["DELETE", "CONNECT"] as const).map((operation): SectionCase => ({
    name: `authorize allows ${operation} without any API call`,
    pod: null,
    review: { operation, oldObject: podWithGmsaAt("pod", { gmsaCredentialSpecName: "BAD" }) },
    expect: { allowed: true, audit: undefined },
    calls: { total: 0 },
  })),
  ...FUNCTION_NAMES.flatMap((fn) =>
    (
      [
        ["apps", "Deployment", "apps/v1"],
        ["", "ConfigMap", "core/v1"],
      ] as const
    ).map(([group, kind, groupVersion]): SectionCase => ({
      name: `${fn} allows another kind (${kind}) unchanged with a warning`,
      fn,
      pod: { metadata: { name: "d" }, data: {} },
      review: { kind: { group, version: "v1", kind } },
      expect: { allowed: true, warnings: [`${groupVersion} ${kind} was allowed unchanged`], audit: undefined },
      calls: { total: 0 },
    })),
  ),
  ...FUNCTION_NAMES.flatMap((fn) =>
    (
      [
        ["gives a dryRun review the same answer", { dryRun: true }],
        [
          "answers a v1beta1 review in v1beta1 with the uid echoed",
          { apiVersion: "admission.k8s.io/v1beta1", uid: "b1" },
        ],
      ] as const
    ).map(([what, review]): SectionCase => ({
      name: `${fn} ${what}`,
      fn,
      pod: podWithGmsaAt("container", fn === "authorize" ? expanded1 : named1),
      review,
      world: { allowed: [] },
      expect:
        fn === "authorize"
          ? { allowed: false, status: 403, message: ['container "app": service account "sa1"'] }
          : { allowed: true, pod: podWithGmsaAt("container", expanded1) },
    })),
  ),
  {
    name: "authorize denies every offending place before loading anything, each with its own code",
    pod: buildPod({
      windowsOptions: { gmsaCredentialSpec: "{}" },
      containers: [{ name: "app", windowsOptions: { gmsaCredentialSpecName: "Bad_Name", gmsaCredentialSpec: "{}" } }],
      initContainers: [
        { name: "setup", windowsOptions: { gmsaCredentialSpecName: "webapp1", gmsaCredentialSpec: "x" } },
      ],
    }),
    expect: denied(
      422,
      ['container "app": credspec name "Bad_Name"', "pod: GMSA credspec contents are set", 'init container "setup"'],
      { audit: deniedAudit("webapp1", "ERR_INVALID_CREDSPEC_NAME,ERR_CONTENTS_WITHOUT_NAME,ERR_CONTENTS_NOT_JSON") },
    ),
    calls: { total: 0 },
  },
  {
    name: "authorize names every place sharing a credspec in one refusal, answering both the access refusal and the missing credspec",
    pod: buildPod({
      windowsOptions: expanded1,
      containers: [{ name: "app", windowsOptions: expanded1 }],
      initContainers: [{ name: "setup", windowsOptions: expanded1 }],
    }),
    world: { credspecs: {}, allowed: [] },
    expect: denied(
      403,
      ['pod, container "app", init container "setup": service account', 'GMSACredentialSpec "webapp1" not found'],
      { audit: deniedAudit("webapp1", "ERR_CREDSPEC_NOT_ALLOWED,ERR_CREDSPEC_NOT_FOUND") },
    ),
  },
  {
    name: "authorize judges alpha annotations: contents without a name, a name without contents, absent containers, repeated keys (422)",
    pod: buildPod({
      annotations: {
        [annotationsPod.contentsKey]: "{}",
        [ghost.nameKey]: "webapp1",
        [annotationsApp.nameKey]: "webapp1",
        [annotationsApp.contentsKey]: '{"a":1,"a":1}',
      },
    }),
    expect: denied(422, ['"ghost"', "without a credspec name", 'repeat the key "a"', "never inlined"], {
      audit: deniedAudit(
        "webapp1",
        "ERR_UNKNOWN_CONTAINER,ERR_CONTENTS_WITHOUT_NAME,ERR_DUPLICATE_CREDSPEC_KEY,ERR_NAME_WITHOUT_CONTENTS",
      ),
    }),
    calls: { total: 0 },
  },
  {
    name: "authorize keeps a long authorizer reason short",
    pod: podWithGmsaAt("pod", expanded1),
    world: { allowed: [], denyReason: "r".repeat(5000) },
    expect: { allowed: false, status: 403, message: ["r".repeat(160) + "…"], notInMessage: ["r".repeat(161)] },
  },
  {
    name: "REVIEW_REQUESTING_USER=always says once what failed when both reviews fail alike (500)",
    pod: podWithGmsaAt("container", expanded1),
    review: { userInfo: ALICE },
    settings: { requestingUser: "always" },
    world: {
      fail: (call) =>
        call === "getCredSpecContents"
          ? undefined
          : new AdmissionError("access review failed", { code: "ERR_KUBE_API" }),
    },
    expect: { allowed: false, status: 500, once: ["access review failed"] },
  },
  {
    name: "REVIEW_REQUESTING_USER=always refuses a create without a requester (400)",
    pod: podWithGmsaAt("pod", expanded1),
    review: { userInfo: {} },
    settings: { requestingUser: "always" },
    expect: { allowed: false, status: 400, message: ["request.userInfo.username is missing"] },
    calls: { total: 0 },
  },
  ...(
    [
      [
        annotationsPod.nameKey,
        "webapp2",
        inlined(WEBAPP1_CREDSPEC),
        'credspec name changed from "webapp1" to "webapp2"',
        "webapp2",
      ],
      [annotationsPod.contentsKey, "webapp1", inlined(WEBAPP2_CREDSPEC), "contents changed", ""],
    ] as const
  ).map(([key, name, contents, change, credspecs]): SectionCase => ({
    name: `authorize reads the alpha annotation ${key.endsWith("-name") ? "name as a name" : "contents as contents"} on UPDATE (400)`,
    pod: buildPod({ annotations: alpha(annotationsPod, name, contents) }),
    review: {
      operation: "UPDATE",
      oldObject: buildPod({ annotations: alpha(annotationsPod, "webapp1", inlined(WEBAPP1_CREDSPEC)) }),
    },
    expect: denied(400, [`annotation "${key}": GMSA settings cannot change on update (${change})`], {
      audit: deniedAudit(credspecs, "ERR_GMSA_CHANGED"),
    }),
    calls: { total: 0 },
  })),
  {
    name: "authorize ignores the alpha annotations of a pod gaining an ephemeral container: they were judged with the pod",
    pod: buildPod({
      annotations: STALE_ANNOTATIONS,
      windowsOptions: expanded2,
      ephemeralContainers: [{ name: "debugger", windowsOptions: expanded1 }],
    }),
    review: { ...debug, oldObject: buildPod({ annotations: STALE_ANNOTATIONS, windowsOptions: expanded2 }) },
    expect: { allowed: true, audit: { decision: "allowed", credspecs: "webapp1" } },
  },
  {
    name: "authorize refuses a review whose object is not a pod (400), annotated",
    pod: { spec: { containers: "nope" } },
    expect: denied(400, ["request.object"], { audit: deniedAudit("", "ERR_INVALID_REVIEW") }),
  },
]);

const enforcement = casesOf("authorize", [
  {
    name: "ENFORCEMENT=deny: a denial carries the audit annotations",
    pod: podWithGmsaAt("container", expanded1),
    world: { allowed: [] },
    settings: { enforcement: "deny" },
    expect: denied(403, [], { audit: deniedAudit("webapp1", "ERR_CREDSPEC_NOT_ALLOWED") }),
  },
  {
    name: "ENFORCEMENT unset denies: a deployment that names none enforces",
    pod: podWithGmsaAt("container", expanded1),
    world: { allowed: [] },
    settings: { enforcement: readConfig({ CALLER_AUTH: "none", HOST: "127.0.0.1" }, "node").enforcement },
    expect: { allowed: false, status: 403 },
  },
  {
    name: "ENFORCEMENT=warn: allows what it would deny (403), with that warning first and the audit annotations",
    pod: podWithGmsaAt("container", { ...expanded1, runAsUserName: "ContainerUser" }),
    world: { allowed: [] },
    settings: { enforcement: "warn" },
    expect: {
      allowed: true,
      warnings: [
        'ENFORCEMENT=warn: gmsa-webhooks would deny this request: 403 ERR_CREDSPEC_NOT_ALLOWED at container "app"',
        'container "app" uses GMSA credspec "webapp1" but runs as "ContainerUser"',
      ],
      audit: {
        decision: "would-deny",
        credspecs: "webapp1",
        codes: "ERR_CREDSPEC_NOT_ALLOWED",
        "would-deny": '403 ERR_CREDSPEC_NOT_ALLOWED at container "app" (credspec "webapp1")',
      },
    },
  },
  {
    name: "ENFORCEMENT=warn: allows a review that fails closed in deny mode (500)",
    pod: podWithGmsaAt("container", expanded1),
    world: { fail: () => new Error(`API server down, ${LEAK_MARKER}`) },
    settings: { enforcement: "warn" },
    expect: { allowed: true, warnings: ["would deny this request: 500 ERR_INTERNAL"] },
  },
  {
    name: "ENFORCEMENT=warn leaves expand alone: it denies, without audit annotations",
    fn: "expand",
    pod: podWithGmsaAt("container", named1),
    world: { fail: () => new Error(`API server down, ${LEAK_MARKER}`) },
    settings: { enforcement: "warn" },
    expect: { allowed: false, status: 500 },
  },
]);

const requestingUser = casesOf("authorize", [
  {
    name: "REVIEW_REQUESTING_USER=off never reviews the requester (as windows-gmsa)",
    pod: withDebugger(expanded1),
    review: debugByAlice,
    expect: { allowed: true },
    calls: { userAccess: [] },
  },
  {
    name: "REVIEW_REQUESTING_USER=ephemeral denies a user who may not use the credspec a new ephemeral container naming it (403)",
    pod: withDebugger(expanded1),
    review: debugByAlice,
    settings: { requestingUser: "ephemeral" },
    world: { denyReason: "RBAC: no" },
    expect: denied(
      403,
      ['ephemeral container "debugger-2": user "alice" is not allowed to use GMSACredentialSpec "webapp1" (RBAC: no)'],
      { notInMessage: ["service account"] },
    ),
    calls: { userAccess: aliceAsked("webapp1") },
  },
  {
    name: "REVIEW_REQUESTING_USER=ephemeral allows a user who may use it, reviewing user and service account each once",
    pod: withDebugger(expanded1, { name: "debugger-3", securityContext: { windowsOptions: expanded1 } }),
    review: debugByAlice,
    settings: { requestingUser: "ephemeral" },
    world: { allowedUsers: aliceMay("webapp1") },
    expect: { allowed: true },
    calls: { userAccess: aliceAsked("webapp1"), access: ["ns1/sa1/webapp1"], contents: { webapp1: 1 } },
  },
  {
    name: "REVIEW_REQUESTING_USER=ephemeral does not review the requester of a pod create",
    pod: podWithGmsaAt("container", expanded1),
    review: { userInfo: ALICE },
    settings: { requestingUser: "ephemeral" },
    expect: { allowed: true },
    calls: { userAccess: [] },
  },
  {
    name: "REVIEW_REQUESTING_USER=always denies a pod create whose requester may not use the credspec (403)",
    pod: podWithGmsaAt("container", expanded1),
    review: { userInfo: ALICE },
    settings: { requestingUser: "always" },
    expect: denied(403, ['container "app": user "alice" is not allowed to use GMSACredentialSpec "webapp1"']),
  },
  ...(
    [
      ["always", [], 403],
      ["always", aliceMay("webapp2"), undefined],
      ["ephemeral", [], undefined],
    ] as const
  ).map(([mode, allowedUsers, status]): SectionCase => ({
    name: `REVIEW_REQUESTING_USER=${mode} on a pod update that leaves GMSA alone${allowedUsers.length > 0 ? ", the user allowed" : ""}: the requester only`,
    pod: { ...buildPod({ windowsOptions: expanded2 }), metadata: { ...buildPod().metadata, labels: { a: "b" } } },
    review: { operation: "UPDATE", oldObject: buildPod({ windowsOptions: expanded2 }), userInfo: ALICE },
    settings: { requestingUser: mode },
    world: { allowedUsers: [...allowedUsers] },
    expect:
      status === undefined
        ? { allowed: true }
        : { allowed: false, status, message: ['pod: user "alice" is not allowed to use GMSACredentialSpec "webapp2"'] },
    calls: mode === "always" ? { access: [], contents: {}, userAccess: aliceAsked("webapp2") } : { total: 0 },
  })),
  ...(["ephemeral", "always"] as const).flatMap((mode): SectionCase[] => [
    {
      name: `REVIEW_REQUESTING_USER=${mode} denies a user the pod-level GMSA a new ephemeral container without its own runs under (403)`,
      pod: withDebugger({ runAsUserName: "ContainerAdministrator" }),
      review: debugByAlice,
      settings: { requestingUser: mode },
      expect: denied(
        403,
        [
          'ephemeral container "debugger-2" (pod-level GMSA): user "alice" is not allowed to use GMSACredentialSpec "webapp2"',
        ],
        { audit: deniedAudit("webapp2", "ERR_CREDSPEC_NOT_ALLOWED"), warnings: [RUNS_AS_ADMINISTRATOR] },
      ),
      calls: { userAccess: aliceAsked("webapp2") },
    },
    {
      name: `REVIEW_REQUESTING_USER=${mode} allows a user who may use the pod-level GMSA of a new ephemeral container`,
      pod: withDebugger(),
      review: debugByAlice,
      settings: { requestingUser: mode },
      world: { allowedUsers: aliceMay("webapp2") },
      expect: { allowed: true, audit: { decision: "allowed", credspecs: "webapp2" } },
      calls: { userAccess: aliceAsked("webapp2"), access: ["ns1/sa1/webapp2"] },
    },
  ]),
  ...(["ephemeral", "always"] as const).map((mode): SectionCase => ({
    name: `REVIEW_REQUESTING_USER=${mode} still reviews the service account's use of the pod-level GMSA of a new ephemeral container (403)`,
    pod: withDebugger({ runAsUserName: "ContainerAdministrator" }),
    review: debugByAlice,
    settings: { requestingUser: mode },
    world: { allowed: sa1May("webapp1"), allowedUsers: aliceMay("webapp2") },
    expect: denied(403, ['ephemeral container "debugger-2" (pod-level GMSA): service account "sa1"', '"webapp2"'], {
      warnings: [RUNS_AS_ADMINISTRATOR],
    }),
    calls: { access: ["ns1/sa1/webapp2"], userAccess: aliceAsked("webapp2"), contents: { webapp2: 1 } },
  })),
  {
    name: "REVIEW_REQUESTING_USER=off allows a new ephemeral container under the pod-level GMSA without reviewing the requester",
    pod: withDebugger(),
    review: debugByAlice,
    expect: { allowed: true, audit: { decision: "allowed", credspecs: "webapp2" } },
    calls: { userAccess: [], access: ["ns1/sa1/webapp2"] },
  },
  {
    name: "REVIEW_REQUESTING_USER=always needs nothing for a new ephemeral container in a pod without a pod-level GMSA",
    pod: buildPod({ ephemeralContainers: [{ name: "debugger" }] }),
    review: { ...debugByAlice, oldObject: buildPod({ ephemeralContainers: [] }) },
    settings: { requestingUser: "always" },
    expect: { allowed: true, audit: { decision: "allowed" } },
    calls: { total: 0 },
  },
  {
    name: "REVIEW_REQUESTING_USER=ephemeral judges a container naming a credspec of its own by its own, not the pod's",
    pod: withDebugger(expanded1),
    review: debugByAlice,
    settings: { requestingUser: "ephemeral" },
    world: { allowedUsers: aliceMay("webapp1") },
    expect: { allowed: true },
    calls: { userAccess: aliceAsked("webapp1") },
  },
  {
    name: "REVIEW_REQUESTING_USER=ephemeral fails closed when the user's review cannot be made (500)",
    pod: withDebugger(expanded1),
    review: debugByAlice,
    settings: { requestingUser: "ephemeral" },
    world: {
      fail: (call) => (call === "canUserUseCredSpec" ? new Error(`connection refused, ${LEAK_MARKER}`) : undefined),
    },
    expect: { allowed: false, status: 500 },
  },
  {
    name: "REVIEW_REQUESTING_USER=ephemeral refuses a review without a username (400)",
    pod: withDebugger(expanded1),
    review: { ...debug, userInfo: {} },
    settings: { requestingUser: "ephemeral" },
    expect: { allowed: false, status: 400, message: ["request.userInfo.username is missing"] },
  },
  ...["exec", "attach"].flatMap((subResource) =>
    atEachPlace(({ kind, label }) => ({
      name: `REVIEW_REQUESTING_USER=ephemeral refuses a ${subResource} into a GMSA pod to a user who may not use its credspec (403)`,
      pod: execOptions,
      review: connectAs(subResource),
      settings: { requestingUser: "ephemeral" },
      world: { pods: { "ns1/web": podWithGmsaAt(kind, named1) } },
      expect: denied(403, [
        `pods/${subResource} into ${label}: user "alice" is not allowed to use GMSACredentialSpec "webapp1"`,
      ]),
      calls: { podReads: ["ns1/web"], userAccess: aliceAsked("webapp1"), contents: {}, access: [] },
    })),
  ),
  {
    name: "REVIEW_REQUESTING_USER=ephemeral refuses an exec without a requester (400)",
    pod: execOptions,
    review: { ...connectAs("exec"), userInfo: {} },
    settings: { requestingUser: "ephemeral" },
    world: { pods: gmsaPods },
    expect: { allowed: false, status: 400, message: ["request.userInfo.username is missing"] },
  },
  {
    name: "REVIEW_REQUESTING_USER=always allows an exec to a user who may use the pod's credspec",
    pod: execOptions,
    review: connectAs("exec"),
    settings: { requestingUser: "always" },
    world: { pods: gmsaPods, allowedUsers: aliceMay("webapp1") },
    expect: { allowed: true },
    calls: { podReads: ["ns1/web"], userAccess: aliceAsked("webapp1") },
  },
  {
    name: "REVIEW_REQUESTING_USER=ephemeral allows an exec into a pod without GMSA settings after reading it, with no access review",
    pod: execOptions,
    review: connectAs("exec"),
    settings: { requestingUser: "ephemeral" },
    world: { pods: { "ns1/web": buildPod() } },
    expect: { allowed: true },
    calls: { podReads: ["ns1/web"], userAccess: [] },
  },
  ...["exec", "portforward", "proxy"].map((subResource): SectionCase => ({
    name: `REVIEW_REQUESTING_USER=${subResource === "exec" ? "off" : "always"} allows any ${subResource} without reading the pod`,
    pod: execOptions,
    review: connectAs(subResource),
    settings: { requestingUser: subResource === "exec" ? "off" : "always" },
    world: { pods: gmsaPods },
    expect: { allowed: true },
    calls: { total: 0 },
  })),
  {
    name: "REVIEW_REQUESTING_USER=ephemeral fails closed when the exec's pod cannot be read (500)",
    pod: execOptions,
    review: connectAs("exec"),
    settings: { requestingUser: "ephemeral" },
    world: {
      fail: () =>
        new AdmissionError('reading pod "ns1/web": API server answered 403 Forbidden: check this function\'s RBAC', {
          code: "ERR_KUBE_API",
        }),
    },
    expect: { allowed: false, status: 500, message: ["check this function's RBAC"] },
  },
]);

const expandAtEachPlace = casesOf("expand", [
  ...atEachPlace(({ kind }) => ({
    name: "expand inlines the named credspec's contents as JSON, loading it once, keeping the other windowsOptions",
    pod: podWithGmsaAt(kind, { ...named1, runAsUserName: "NT AUTHORITY\\SYSTEM" }),
    expect: { allowed: true, pod: podWithGmsaAt(kind, { ...expanded1, runAsUserName: "NT AUTHORITY\\SYSTEM" }) },
    calls: { contents: { webapp1: 1 }, total: 1 },
  })),
  ...atEachPlace(({ kind }) => ({
    name: "expand leaves preset contents that match the credspec alone (no patch, no load)",
    pod: podWithGmsaAt(kind, expanded1),
    expect: { allowed: true },
    calls: { total: 0 },
  })),
  ...atEachPlace(({ kind }) => ({
    name: "expand leaves preset contents that differ from the credspec for authorize to judge (no patch)",
    pod: podWithGmsaAt(kind, mismatched1),
    expect: { allowed: true },
    calls: { total: 0 },
  })),
  ...atEachPlace(({ kind }) => ({
    name: "expand leaves contents without a name for authorize to judge (no patch, no API call)",
    pod: podWithGmsaAt(kind, { gmsaCredentialSpec: inlined(WEBAPP1_CREDSPEC) }),
    expect: { allowed: true },
    calls: { total: 0 },
  })),
  ...atEachPlace(({ kind, label }) => ({
    name: "expand denies contents over 65,536 bytes (422) before any patch, naming the place and credspec",
    pod: podWithGmsaAt(kind, { gmsaCredentialSpecName: "big" }),
    world: { credspecs: { big: { ...WEBAPP1_CREDSPEC, padding: "x".repeat(70_000) } } },
    expect: { allowed: false, status: 422, message: [label, '"big"', "at most 65536"], notInMessage: ["xxxx"] },
  })),
  ...atEachPlace(({ kind }) => ({
    name: "expand sets a random hostname from the random bytes when RANDOM_HOSTNAME is on",
    pod: podWithGmsaAt(kind, named1),
    settings: { randomHostname: true },
    expect: {
      allowed: true,
      pod: podWithGmsaAt(kind, expanded1, { hostname: createRandomHostname(fixedRandomBytes(15)) }),
    },
  })),
  ...atEachPlace(({ kind }) => ({
    name: "expand keeps a preset hostname when RANDOM_HOSTNAME is on",
    pod: podWithGmsaAt(kind, named1, { hostname: "web-0" }),
    settings: { randomHostname: true },
    expect: { allowed: true, pod: podWithGmsaAt(kind, expanded1, { hostname: "web-0" }) },
  })),
  ...atEachPlace(({ kind }) => ({
    name: "expand treats a HostProcess pod by the same rules",
    pod: podWithGmsaAt(kind, { ...named1, ...HOST_PROCESS }, HOST_NETWORK),
    expect: { allowed: true, pod: podWithGmsaAt(kind, { ...expanded1, ...HOST_PROCESS }, HOST_NETWORK) },
  })),
  ...atEachPlace(({ kind, keys }) => ({
    name: "expand fills the contents annotation and sets the fields",
    pod: buildPod({ annotations: { [keys.nameKey]: "webapp1", other: "kept" } }),
    expect: {
      allowed: true,
      pod: podWithGmsaAt(kind, expanded1, {
        annotations: { ...alpha(keys, "webapp1", inlined(WEBAPP1_CREDSPEC)), other: "kept" },
      }),
    },
    calls: { contents: { webapp1: 1 } },
  })),
  ...atEachPlace(({ kind, keys }) => ({
    name: "expand copies given alpha annotation contents into the field, and never contents that repeat a key",
    pod: buildPod({ annotations: alpha(keys, "webapp1", '{"a":1,"a":2}') }),
    expect: {
      allowed: true,
      pod: podWithGmsaAt(kind, expanded1, { annotations: alpha(keys, "webapp1", '{"a":1,"a":2}') }),
    },
  })),
  ...atEachPlace(({ kind, label, keys }) => ({
    name: "expand denies an alpha annotation that conflicts with the field (422) without any API call",
    pod: podWithGmsaAt(kind, named1, { annotations: { [keys.nameKey]: "webapp2" } }),
    expect: { allowed: false, status: 422, message: [label, keys.nameKey, '"webapp1"', '"webapp2"'] },
    calls: { total: 0 },
  })),
]);

/** Contents of exactly MAX_CREDSPEC_CONTENTS_BYTES bytes of UTF-8 as JSON. */
const MAX_CONTENTS = { b: "é".repeat((MAX_CREDSPEC_CONTENTS_BYTES - '{"b":""}'.length) / 2) };

const expandOnce = casesOf("expand", [
  {
    name: "expand gives several containers sharing one credspec the contents each, from one load",
    pod: buildPod({ containers: ["a", "b", "c"].map((name) => ({ name, windowsOptions: named1 })) }),
    expect: {
      allowed: true,
      pod: buildPod({ containers: ["a", "b", "c"].map((name) => ({ name, windowsOptions: expanded1 })) }),
    },
    calls: { contents: { webapp1: 1 } },
  },
  {
    name: "expand loads a credspec named in ten places once",
    pod: inTenPlaces(named1),
    expect: { allowed: true, pod: inTenPlaces(expanded1) },
    calls: { contents: { webapp1: 1 } },
  },
  {
    name: "expand gives a container with its own credspec its own contents over the pod's",
    pod: buildPod({
      windowsOptions: named1,
      containers: [{ name: "app" }, { name: "other", windowsOptions: { gmsaCredentialSpecName: "webapp2" } }],
    }),
    expect: {
      allowed: true,
      pod: buildPod({
        windowsOptions: expanded1,
        containers: [{ name: "app" }, { name: "other", windowsOptions: expanded2 }],
      }),
    },
    calls: { contents: { webapp1: 1, webapp2: 1 } },
  },
  {
    name: "expand denies every place naming an unknown credspec, not just the first",
    pod: buildPod({
      windowsOptions: { gmsaCredentialSpecName: "missing" },
      containers: [{ name: "app", windowsOptions: { gmsaCredentialSpecName: "gone" } }],
      initContainers: [{ name: "setup", windowsOptions: { gmsaCredentialSpecName: "missing" } }],
    }),
    expect: denied(422, ['pod, init container "setup": ', '"missing"', 'container "app": ', '"gone"']),
  },
  {
    name: "expand answers the highest-precedence code when failures mix (500 over 422)",
    pod: buildPod({
      containers: [
        { name: "a", windowsOptions: { gmsaCredentialSpecName: "missing" } },
        { name: "b", windowsOptions: { gmsaCredentialSpecName: "broken" } },
      ],
    }),
    world: { fail: failing("broken") },
    expect: { allowed: false, status: 500, message: ['container "a"', 'container "b"'] },
  },
  {
    name: "expand allows a pod without any GMSA reference unchanged, without a hostname or any API call",
    pod: buildPod(),
    settings: { randomHostname: true },
    expect: { allowed: true },
    calls: { total: 0 },
  },
  {
    name: "expand loads a credspec named by an alpha annotation and its field once",
    pod: podWithGmsaAt("container", named1, { annotations: { [annotationsApp.nameKey]: "webapp1" } }),
    expect: {
      allowed: true,
      pod: podWithGmsaAt("container", expanded1, {
        annotations: alpha(annotationsApp, "webapp1", inlined(WEBAPP1_CREDSPEC)),
      }),
    },
    calls: { contents: { webapp1: 1 } },
  },
  {
    name: "expand denies an alpha annotation naming an absent container (422)",
    pod: buildPod({ annotations: { [ghost.nameKey]: "webapp1" } }),
    expect: { allowed: false, status: 422, message: ['"ghost"', ghost.nameKey] },
  },
  {
    name: "expand denies an unknown credspec named by an alpha annotation (422), naming the annotation",
    pod: buildPod({ annotations: { [annotationsPod.nameKey]: "missing" } }),
    expect: { allowed: false, status: 422, message: [annotationsPod.nameKey, '"missing"'] },
  },
  {
    name: "expand expands a new ephemeral container like a create, leaving existing ones and the hostname alone",
    pod: withDebugger(named1),
    review: debug,
    settings: { randomHostname: true },
    expect: { allowed: true, pod: withDebugger(expanded1) },
    calls: { contents: { webapp1: 1 } },
  },
  {
    name: "expand denies a new ephemeral container naming an unknown credspec (422)",
    pod: withDebugger({ gmsaCredentialSpecName: "missing" }),
    review: debug,
    expect: { allowed: false, status: 422, message: ['ephemeral container "debugger-2"', '"missing"'] },
  },
  {
    name: "expand names every place sharing a credspec that is too large in one refusal, and every place of an unknown one",
    pod: buildPod({
      windowsOptions: { gmsaCredentialSpecName: "big" },
      containers: [{ name: "app", windowsOptions: { gmsaCredentialSpecName: "big" } }],
      initContainers: [
        { name: "setup", windowsOptions: { gmsaCredentialSpecName: "gone" } },
        { name: "s2", windowsOptions: { gmsaCredentialSpecName: "gone" } },
      ],
    }),
    world: { credspecs: { big: { blob: "x".repeat(MAX_CREDSPEC_CONTENTS_BYTES) } } },
    expect: {
      allowed: false,
      status: 422,
      message: ['pod, container "app": credspec "big"', 'init container "setup", init container "s2": ', '"gone"'],
    },
  },
  ...[0, 1].map((extra): SectionCase => ({
    name: `expand ${extra === 0 ? "accepts contents of exactly 65,536 bytes of UTF-8" : "refuses contents one byte over 65,536 (422)"}`,
    pod: podWithGmsaAt("pod", { gmsaCredentialSpecName: "big" }),
    // One "é" fewer and three "x" more: one byte over.
    world: { credspecs: { big: extra === 0 ? MAX_CONTENTS : { b: `${MAX_CONTENTS.b.slice(1)}xxx` } } },
    expect:
      extra === 0
        ? {
            allowed: true,
            pod: podWithGmsaAt("pod", { gmsaCredentialSpecName: "big", gmsaCredentialSpec: inlined(MAX_CONTENTS) }),
          }
        : { allowed: false, status: 422, message: ["is 65537 bytes as JSON"] },
  })),
  {
    name: `expand refuses once (422) to inline more than ${MAX_INLINED_CONTENTS_PER_POD} characters into one pod`,
    pod: buildPod({
      containers: Array.from({ length: 60 }, (_, i) => ({
        name: `c${i}`,
        windowsOptions: { gmsaCredentialSpecName: "blob" },
      })),
    }),
    world: { credspecs: { blob: { b: "x".repeat(60_000) } } },
    expect: { allowed: false, status: 422, once: [`more than ${MAX_INLINED_CONTENTS_PER_POD} characters`] },
  },
  {
    name: "expand refuses an alpha annotation naming an absent container and one conflicting with its field (422), loading nothing",
    pod: podWithGmsaAt("container", named1, {
      annotations: { [annotationsApp.nameKey]: "webapp2", [ghost.nameKey]: "webapp1" },
    }),
    expect: { allowed: false, status: 422, message: ['container "app" names "webapp1"', 'container "ghost"'] },
    calls: { total: 0 },
  },
  {
    name: "expand ignores the stored pod's alpha annotations when adding an ephemeral container",
    pod: { ...withDebugger(named1), metadata: { ...existing.metadata, annotations: { [ghost.nameKey]: "x" } } },
    review: debug,
    expect: {
      allowed: true,
      pod: {
        ...withDebugger(expanded1),
        metadata: { ...existing.metadata, annotations: { [ghost.nameKey]: "x" } },
      },
    },
  },
  {
    name: "expand leaves a new ephemeral container without GMSA settings alone: it runs under the pod's, already expanded",
    pod: withDebugger({}),
    review: debug,
    expect: { allowed: true },
    calls: { total: 0 },
  },
  {
    name: "expand denies an ephemeral UPDATE without oldObject as a bad review (400)",
    pod: existing,
    review: { operation: "UPDATE", subResource: "ephemeralcontainers" },
    expect: { allowed: false, status: 400, message: ["oldObject"] },
  },
  ...(["UPDATE", "DELETE", "CONNECT"] as const).map((operation): SectionCase => ({
    name: `expand allows ${operation} unchanged without any API call`,
    pod: operation === "DELETE" ? null : podWithGmsaAt("pod", named1),
    review: { operation, oldObject: podWithGmsaAt("pod", named1) },
    expect: { allowed: true },
    calls: { total: 0 },
  })),
  {
    name: "expand denies a CREATE whose object is not a pod as a bad review (400)",
    pod: { spec: { containers: "nope" } },
    expect: { allowed: false, status: 400, message: ["request.object"] },
  },
]);

export const RULE_CASES: readonly RuleCase[] = [
  ...authorizeAtEachPlace,
  ...authorizeOnce,
  ...enforcement,
  ...requestingUser,
  ...expandAtEachPlace,
  ...expandOnce,
];
