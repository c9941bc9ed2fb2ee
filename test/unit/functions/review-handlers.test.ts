import { describe, expect, it } from "vitest";
import { loadFacts, untilDeadline } from "../../../functions/review-handlers.ts";
import { DeadlineExceededError, KubeApiError } from "../../../shared/errors.ts";
import type { GmsaClient } from "../../../shared/kube/gmsa-client.ts";
import type { LoadPlan } from "../../../shared/policy/facts.ts";
import { createFakeGmsaClient, WITHOUT_CONTENTS } from "../../support/fake-gmsa-client.ts";
import { WEBAPP1_CREDSPEC } from "../../support/pods.ts";

const never = new AbortController().signal;
const serviceAccount = { namespace: "ns1", serviceAccount: "sa1" };
const alice = { namespace: "ns1", user: { username: "alice", groups: ["devs"] } };

function plan(credspecs: string[], access: LoadPlan["access"] = [], randomBytes = 0): LoadPlan {
  return { credspecs: new Set(credspecs), access, randomBytes };
}

function contextOf(gmsa: GmsaClient, signal = never) {
  return { gmsa, signal, randomBytes: (n: number) => new Uint8Array(n).fill(7) };
}

describe("loadFacts", () => {
  it("loads each credspec once and turns failures into facts", async () => {
    const gmsa = createFakeGmsaClient({
      credspecs: { webapp1: WEBAPP1_CREDSPEC, empty: WITHOUT_CONTENTS },
      fail: (_call, name) => (name === "broken" ? new KubeApiError("503") : undefined),
    });
    const facts = await loadFacts(plan(["webapp1", "missing", "empty", "broken"]), contextOf(gmsa));
    expect(facts.credspecs.get("webapp1")).toEqual({ ok: true, value: WEBAPP1_CREDSPEC });
    expect(facts.credspecs.get("missing")).toMatchObject({ ok: false, error: { code: "ERR_CREDSPEC_NOT_FOUND" } });
    expect(facts.credspecs.get("empty")).toMatchObject({ ok: false, error: { code: "ERR_CREDSPEC_WITHOUT_CONTENTS" } });
    expect(facts.credspecs.get("broken")).toMatchObject({ ok: false, error: { code: "ERR_KUBE_API" } });
    expect([...gmsa.contentsCalls.values()]).toEqual([1, 1, 1, 1]);
  });

  it("reviews each (subject, credspec) once: the service account's and the requester's, answers in the plan's order", async () => {
    const gmsa = createFakeGmsaClient({
      allowed: [{ ...serviceAccount, credSpecName: "a" }],
      allowedUsers: [{ namespace: "ns1", username: "alice", credSpecName: "b" }],
      denyReason: "no",
    });
    const facts = await loadFacts(plan([], [{ subject: serviceAccount, names: new Set(["a", "b"]) }, { subject: alice, names: new Set(["a", "b"]) }]), contextOf(gmsa));
    expect(facts.access.map((answers) => Object.fromEntries(answers))).toEqual([
      { a: { ok: true, value: { allowed: true, reason: "" } }, b: { ok: true, value: { allowed: false, reason: "no" } } },
      { a: { ok: true, value: { allowed: false, reason: "no" } }, b: { ok: true, value: { allowed: true, reason: "" } } },
    ]);
    expect(gmsa.accessQueries).toEqual([
      { ...serviceAccount, credSpecName: "a" },
      { ...serviceAccount, credSpecName: "b" },
    ]);
    expect(gmsa.userAccessQueries).toEqual([
      { ...alice, credSpecName: "a" },
      { ...alice, credSpecName: "b" },
    ]);
  });

  it("makes every call at once", async () => {
    const gmsa = createFakeGmsaClient({ credspecs: { a: 1, b: 2 }, delayMs: 20 });
    await loadFacts(plan(["a", "b"], [{ subject: serviceAccount, names: new Set(["a", "b"]) }, { subject: alice, names: new Set(["a"]) }]), contextOf(gmsa));
    expect(gmsa.maxInFlight()).toBe(5);
  });

  it("draws random bytes only when the plan asks for them", async () => {
    const gmsa = createFakeGmsaClient();
    expect((await loadFacts(plan([], [], 15), contextOf(gmsa))).randomBytes).toEqual(new Uint8Array(15).fill(7));
    expect((await loadFacts(plan([]), contextOf(gmsa))).randomBytes).toHaveLength(0);
    expect(gmsa.callCount()).toBe(0);
  });

  it("turns a call that outlives the deadline into a fact (500)", async () => {
    const hanging: GmsaClient = { ...createFakeGmsaClient(), getCredSpecContents: () => new Promise(() => {}) };
    const facts = await loadFacts(plan(["a"]), contextOf(hanging, AbortSignal.timeout(20)));
    expect(facts.credspecs.get("a")).toMatchObject({ ok: false, error: { code: "ERR_DEADLINE_EXCEEDED", status: 500 } });
  });
});

describe("untilDeadline", () => {
  it("settles with the work when it is in time", async () => {
    await expect(untilDeadline(Promise.resolve(1), never)).resolves.toBe(1);
    await expect(untilDeadline(Promise.reject(new KubeApiError("x")), never)).rejects.toBeInstanceOf(KubeApiError);
  });

  it("rejects with DeadlineExceededError (500) when the deadline passes first, even if the work never settles", async () => {
    const started = Date.now();
    const error = await untilDeadline(new Promise(() => {}), AbortSignal.timeout(50)).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "ERR_DEADLINE_EXCEEDED", status: 500 });
    expect(Date.now() - started).toBeLessThan(500);
  });

  it("lets a client that honours the signal reject with its own error, which names what it waited for", async () => {
    const signal = AbortSignal.timeout(20);
    const work = new Promise((_resolve, reject) => {
      signal.addEventListener("abort", () => reject(new DeadlineExceededError('reading GMSACredentialSpec "x": exec plugin "p": no credential before the deadline')));
    });
    await expect(untilDeadline(work, signal)).rejects.toThrow('reading GMSACredentialSpec "x": exec plugin "p": no credential before the deadline');
  });

  it("rejects at once when the deadline has already passed", async () => {
    await expect(untilDeadline(Promise.resolve(1), AbortSignal.abort())).rejects.toMatchObject({ code: "ERR_DEADLINE_EXCEEDED" });
  });
});
