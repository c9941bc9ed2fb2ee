import { describe, expect, it } from "vitest";
import { loadAccess, loadCredSpecs, untilDeadline } from "../../../functions/load-facts.ts";
import { DeadlineExceededError, KubeApiError } from "../../../shared/errors.ts";
import { createFakeGmsaClient, WITHOUT_CONTENTS } from "../../support/fake-gmsa-client.ts";
import { WEBAPP1_CREDSPEC } from "../../support/pods.ts";

const never = new AbortController().signal;

describe("loadCredSpecs", () => {
  it("loads each name once and turns failures into facts", async () => {
    const gmsa = createFakeGmsaClient({
      credspecs: { webapp1: WEBAPP1_CREDSPEC, empty: WITHOUT_CONTENTS },
      fail: (_call, name) => (name === "broken" ? new KubeApiError("503") : undefined),
    });
    const facts = await loadCredSpecs(gmsa, new Set(["webapp1", "missing", "empty", "broken"]), never);
    expect(facts.get("webapp1")).toEqual({ ok: true, value: WEBAPP1_CREDSPEC });
    expect(facts.get("missing")).toMatchObject({ ok: false, error: { code: "ERR_CREDSPEC_NOT_FOUND" } });
    expect(facts.get("empty")).toMatchObject({ ok: false, error: { code: "ERR_CREDSPEC_WITHOUT_CONTENTS" } });
    expect(facts.get("broken")).toMatchObject({ ok: false, error: { code: "ERR_KUBE_API" } });
    expect([...gmsa.contentsCalls.values()]).toEqual([1, 1, 1, 1]);
  });

  it("loads concurrently", async () => {
    const gmsa = createFakeGmsaClient({ credspecs: { a: 1, b: 2, c: 3 }, delayMs: 20 });
    await loadCredSpecs(gmsa, ["a", "b", "c"], never);
    expect(gmsa.maxInFlight()).toBe(3);
  });
});

describe("loadAccess", () => {
  it("asks for the subject and each name", async () => {
    const gmsa = createFakeGmsaClient({ allowed: [{ namespace: "ns1", serviceAccount: "sa1", credSpecName: "a" }], denyReason: "no" });
    const facts = await loadAccess(gmsa, { namespace: "ns1", serviceAccount: "sa1" }, ["a", "b"], never);
    expect(facts.get("a")).toEqual({ ok: true, value: { allowed: true, reason: "" } });
    expect(facts.get("b")).toEqual({ ok: true, value: { allowed: false, reason: "no" } });
    expect(gmsa.accessQueries).toEqual([
      { namespace: "ns1", serviceAccount: "sa1", credSpecName: "a" },
      { namespace: "ns1", serviceAccount: "sa1", credSpecName: "b" },
    ]);
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
