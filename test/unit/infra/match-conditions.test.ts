/**
 * The `has-gmsa-reference` match condition decides which pods the API server sends to the webhooks and the optional
 * ValidatingAdmissionPolicy: a pod it wrongly leaves out is never reviewed. Its definition (selection.ts) and each
 * generated manifest's copy as rendered (manifests.test.ts holds the committed files equal) are evaluated by a CEL
 * implementation against one table of pods; test/e2e/webhook-config.test.ts sends such pods through a real API server.
 */
import { run, type CelInput } from "@bufbuild/cel";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { renderGeneratedFiles } from "../../../infra/build/manifests/files.ts";
import { HAS_GMSA_REFERENCE, MATCH_CONDITION_NAME } from "../../../infra/build/manifests/selection.ts";

interface Condition {
  name: string;
  expression: string;
}

/** Every has-gmsa-reference in the generated manifests under infra/ (the chart's files/ hold the same text). */
function renderedConditions(): [string, string][] {
  return [...renderGeneratedFiles()]
    .filter(([path]) => !path.includes("helm"))
    .flatMap(([path, text]) =>
      parseAllDocuments(text.replace(/\$\{[A-Z_]+\}/g, "x")).flatMap((doc) => {
        const object = doc.toJS() as {
          webhooks?: { matchConditions?: Condition[] }[];
          spec?: { matchConditions?: Condition[] };
        } | null;
        return [
          ...(object?.webhooks ?? []).flatMap((w) => w.matchConditions ?? []),
          ...(object?.spec?.matchConditions ?? []),
        ]
          .filter((c) => c.name === MATCH_CONDITION_NAME)
          .map((c): [string, string] => [path, c.expression]);
      }),
    );
}

const copies: [string, string][] = [
  ["infra/build/manifests/selection.ts", HAS_GMSA_REFERENCE],
  ...renderedConditions(),
];

type Json = null | string | boolean | number | Json[] | { [key: string]: Json };

/** CEL sees a Kubernetes object as maps and lists, as the API server hands it over. */
function toCel(value: Json): CelInput {
  if (Array.isArray(value)) return value.map(toCel);
  if (value !== null && typeof value === "object") return new Map(Object.entries(value).map(([k, v]) => [k, toCel(v)]));
  return value;
}

const named = { windowsOptions: { gmsaCredentialSpecName: "webapp01" } };
const inlined = { windowsOptions: { gmsaCredentialSpec: "{}" } };
const other = { windowsOptions: { runAsUserName: "ContainerUser", hostProcess: false } };
const pod = (spec: Record<string, Json>, annotations?: Record<string, string>): Json => ({
  metadata: { name: "p", ...(annotations ? { annotations } : {}) },
  spec: { containers: [{ name: "app", image: "i" }], ...spec },
});
const container = (securityContext: Json) => [{ name: "c", image: "i", securityContext }];

const SENT: [string, Json, Json][] = [
  ["pod name", pod({ securityContext: named }), null],
  ["pod contents", pod({ securityContext: inlined }), null],
  ["container name", pod({ containers: container(named) }), null],
  ["container contents", pod({ containers: container(inlined) }), null],
  ["init container name", pod({ initContainers: container(named) }), null],
  ["init container contents", pod({ initContainers: container(inlined) }), null],
  ["ephemeral container name", pod({ ephemeralContainers: container(named) }), null],
  ["ephemeral container contents", pod({ ephemeralContainers: container(inlined) }), null],
  ["pod annotation name", pod({}, { "pod.alpha.windows.kubernetes.io/gmsa-credential-spec-name": "webapp01" }), null],
  ["pod annotation contents", pod({}, { "pod.alpha.windows.kubernetes.io/gmsa-credential-spec": "{}" }), null],
  [
    "container annotation name",
    pod({}, { "app.container.alpha.windows.kubernetes.io/gmsa-credential-spec-name": "webapp01" }),
    null,
  ],
  ["a removal on update (old object only)", pod({}), pod({ containers: container(named) })],
  ["a DELETE (old object only)", null, pod({ securityContext: named })],
];

const NOT_SENT: [string, Json, Json][] = [
  ["no windowsOptions", pod({}), null],
  [
    "windowsOptions without GMSA",
    pod({ securityContext: other, containers: container(other), initContainers: container(other) }),
    null,
  ],
  ["unrelated annotations", pod({}, { "example.com/gmsa": "x", "kubectl.kubernetes.io/restartedAt": "now" }), null],
  ["an update of a pod without GMSA", pod({}), pod({ securityContext: other })],
];

/** The request as the API server binds it: the operation follows from which objects a case carries. */
const requestFor = (object: Json, oldObject: Json): Json => ({
  operation: object === null ? "DELETE" : oldObject === null ? "CREATE" : "UPDATE",
  userInfo: { username: "alice", groups: ["system:authenticated"] },
});

/** An exec (attach is alike; only authorize registers them): its object is the options, not the pod, so only the requester can decide. */
const connect = (groups: string[] | undefined): Json => ({
  operation: "CONNECT",
  userInfo: { username: "alice", ...(groups ? { groups } : {}) },
});
const EXEC_OPTIONS: Json = { kind: "PodExecOptions", apiVersion: "v1", command: ["cmd"], stdin: true };

describe.each(copies)("has-gmsa-reference in %s", (_where, expression) => {
  const matches = (object: Json, oldObject: Json, request = requestFor(object, oldObject)) =>
    run(expression, { object: toCel(object), oldObject: toCel(oldObject), request: toCel(request) });
  it.each(SENT)("sends a pod with a GMSA setting: %s", (_name, object, oldObject) => {
    expect(matches(object, oldObject)).toBe(true);
  });
  it.each(NOT_SENT)("leaves out a pod without one: %s", (_name, object, oldObject) => {
    expect(matches(object, oldObject)).toBe(false);
  });
  it("sends an exec or attach, but not one by a member of system:masters", () => {
    expect(matches(EXEC_OPTIONS, null, connect(["system:authenticated"]))).toBe(true);
    expect(matches(EXEC_OPTIONS, null, connect(undefined))).toBe(true);
    expect(matches(EXEC_OPTIONS, null, connect(["system:authenticated", "system:masters"]))).toBe(false);
  });
});

it("has-gmsa-reference is found in both generated webhooks and the policy", () => {
  expect(copies.map(([where]) => where).slice(1)).toEqual([
    "infra/deploy/webhooks/expand.yaml",
    "infra/deploy/webhooks/authorize.yaml",
    "infra/deploy/policy/policy.yaml",
  ]);
});
