/** Builders of the policy's inputs for the few pure tests the rule table (test/unit/rules) cannot express. */
import { expect } from "vitest";
import type { Decision, Pod } from "../../../../shared/admission/review.ts";
import type { PodConnect, PodCreate, Requester } from "../../../../shared/policy/facts.ts";

const ALICE: Requester = { username: "alice", groups: ["devs"] };

/** A CREATE of `pod` in namespace "ns1" by alice. */
export function create(pod: Pod): PodCreate {
  return { object: "pod", operation: "CREATE", namespace: "ns1", pod, requester: ALICE };
}

/** A CONNECT to `subResource` of pod "web" in "ns1" by alice, whose pod authorize did not read. */
export function connect(subResource: string): PodConnect {
  return { object: "pod", operation: "CONNECT", subResource, namespace: "ns1", name: "web", requester: ALICE };
}

/** Asserts a denial: its codes and statuses in order, and that the joined messages name each of `mentions`. */
export function expectDenied(decision: Decision, codes: [string, number][], ...mentions: string[]): void {
  expect(decision.allowed).toBe(false);
  if (decision.allowed) return;
  expect(decision.errors.map((e) => [e.code, e.status])).toEqual(codes);
  const messages = decision.errors.map((e) => e.message).join("; ");
  for (const text of mentions) expect(messages).toContain(text);
}
