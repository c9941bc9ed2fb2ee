/** Builders of the policy's inputs: review facts, and the facts a fake cluster loads for a plan. */
import fastJsonPatch from "fast-json-patch";
import { expect } from "vitest";
import { AdmissionError } from "../../../../shared/errors.ts";
import type { Decision, Pod } from "../../../../shared/admission/review.ts";
import type {
  AccessAnswer,
  Fact,
  LoadedFacts,
  LoadPlan,
  PodConnect,
  PodCreate,
  PodUpdate,
  Requester,
} from "../../../../shared/policy/facts.ts";

export const ALICE: Requester = { username: "alice", groups: ["devs"] };

/** A CREATE in namespace "ns1" by `requester` (null: a review without userInfo). */
export function create(pod: Pod, requester: Requester | null = ALICE): PodCreate {
  return { object: "pod", operation: "CREATE", namespace: "ns1", pod, requester: requester ?? undefined };
}

/** An UPDATE (of `subResource`, if given) in namespace "ns1". */
export function update(oldPod: Pod, pod: Pod, subResource?: string, requester: Requester | null = ALICE): PodUpdate {
  return {
    object: "pod",
    operation: "UPDATE",
    subResource,
    namespace: "ns1",
    pod,
    oldPod,
    requester: requester ?? undefined,
  };
}

/** A CONNECT to `subResource` of pod "web" in "ns1" by `requester`, with the pod as authorize read it (undefined: not read). */
export function connect(
  subResource: string,
  pod?: Pod | AdmissionError,
  requester: Requester | null = ALICE,
): PodConnect {
  const read =
    pod === undefined
      ? {}
      : { pod: pod instanceof AdmissionError ? { ok: false as const, error: pod } : { ok: true as const, value: pod } };
  return {
    object: "pod",
    operation: "CONNECT",
    subResource,
    namespace: "ns1",
    name: "web",
    requester: requester ?? undefined,
    ...read,
  };
}

/** An exec into pod "web" whose pod was not read: what authorize sees with REVIEW_REQUESTING_USER=off. */
export const CONNECT_EXEC = connect("exec");

/** What the fake cluster holds: credspecs, and who may use which (a boolean, or the error the review fails with). */
export interface World {
  credspecs?: Record<string, unknown>;
  /** The service account's answers by credspec name. */
  access?: Record<string, boolean | AdmissionError | AccessAnswer>;
  /** The requester's answers by credspec name. */
  userAccess?: Record<string, boolean | AdmissionError>;
  randomBytes?: Uint8Array;
}

/** What loading `plan` from `world` yields: exactly the facts the plan asked for, no more. */
export function load(plan: LoadPlan, world: World): LoadedFacts {
  return {
    credspecs: new Map([...plan.credspecs].map((name) => [name, fact(world.credspecs?.[name], `credspec ${name}`)])),
    access: plan.access.map(({ subject, names }) => {
      const answers = "user" in subject ? world.userAccess : world.access;
      return new Map(
        [...names].map((name): [string, Fact<AccessAnswer>] => [
          name,
          fact(answer(answers?.[name]), `access to ${name}`),
        ]),
      );
    }),
    randomBytes: world.randomBytes ?? Uint8Array.from({ length: plan.randomBytes }, (_, i) => i * 7 + 3),
  };
}

function answer(value: boolean | AdmissionError | AccessAnswer | undefined): AccessAnswer | AdmissionError | undefined {
  return typeof value === "boolean" ? { allowed: value, reason: value ? "" : "no RBAC rule" } : value;
}

function fact<T>(value: T | AdmissionError | undefined, what: string): Fact<T> {
  if (value === undefined) throw new Error(`the test world has no ${what}`);
  return value instanceof AdmissionError ? { ok: false, error: value } : { ok: true, value };
}

/** Asserts a denial: its codes and statuses in order, and that the joined messages name each of `mentions`. */
export function expectDenied(decision: Decision, codes: [string, number][], ...mentions: string[]): void {
  expect(decision.allowed).toBe(false);
  if (decision.allowed) return;
  expect(decision.errors.map((e) => [e.code, e.status])).toEqual(codes);
  const messages = decision.errors.map((e) => e.message).join("; ");
  for (const text of mentions) expect(messages).toContain(text);
}

/** The pod a decision's patch makes of `pod` (the pod itself when allowed without a patch). */
export function patched(pod: Pod, decision: Decision): Pod {
  expect(decision.allowed).toBe(true);
  const patch = decision.allowed ? (decision.patch ?? []) : [];
  return fastJsonPatch.applyPatch(structuredClone(pod), patch, true, false).newDocument;
}
