import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { createJsonMetrics } from "../../../functions/metrics.ts";
import { createReviewHandler, loadFacts, type ReviewHandler } from "../../../functions/review-handlers.ts";
import type { AppEnv } from "../../../shared/http/env.ts";
import type { AdmissionReviewResponse } from "../../../shared/admission/review.ts";
import type { LoadPlan } from "../../../shared/policy/facts.ts";
import { AdmissionError, createRefusal } from "../../../shared/errors.ts";
import type { GmsaClient } from "../../../shared/kube/client.ts";
import { createJsonLogger, type LogLevel } from "../../../shared/log.ts";
import { createFakeGmsaClient, WITHOUT_CONTENTS } from "../../support/fake-gmsa-client.ts";
import { createTestApp, postReview } from "../../support/app.ts";
import { buildPod, podWithGmsaAt, WEBAPP1_CREDSPEC } from "../../support/pods.ts";
import { buildReview } from "../../support/reviews.ts";

function setup(handle: ReviewHandler, level: LogLevel = "debug", allowedLevel: LogLevel = "info") {
  const lines: string[] = [];
  let clock = 1000;
  const metrics = createJsonMetrics();
  const respond = createReviewHandler("expand", handle, {
    gmsa: createFakeGmsaClient(),
    settings: { randomHostname: false, requestingUser: "off", enforcement: "deny" },
    randomBytes: (n) => new Uint8Array(n),
    logger: createJsonLogger({ level, write: (l) => lines.push(l), now: () => 0 }),
    now: () => (clock += 7),
    metrics: { ...metrics, allowedLevel },
  });
  const app = new Hono<AppEnv>().post(
    "/expand",
    async (c, next) => {
      c.set("signal", new AbortController().signal);
      await next();
    },
    respond,
  );
  const send = async (review: unknown): Promise<AdmissionReviewResponse> => {
    const res = await app.request("/expand", { method: "POST", body: JSON.stringify(review) });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    return (await res.json()) as AdmissionReviewResponse;
  };
  return { send, lines, metrics };
}

describe("createReviewHandler", () => {
  it("turns a plain Error thrown by the handler into a 500 denial without its message, and logs its name", async () => {
    const { send, lines } = setup(() => Promise.reject(new RangeError("secret internals at /etc/kubeconfig")));
    const reply = await send(buildReview(buildPod(), { uid: "uid-7" }));
    expect(reply.response).toMatchObject({
      uid: "uid-7",
      allowed: false,
      status: { code: 500, reason: "InternalError" },
    });
    expect(JSON.stringify(reply)).not.toContain("secret internals");
    const log = JSON.parse(lines.at(-1)!) as Record<string, unknown>;
    expect(log).toMatchObject({
      level: "warn",
      msg: "review",
      uid: "uid-7",
      allowed: false,
      code: 500,
      errors: "ERR_INTERNAL",
      cause: "RangeError",
    });
    expect(lines.join("\n")).not.toContain("secret internals");
  });

  it("answers a credential failure with the uid only, and logs its detail on the review's line", async () => {
    const detail = 'exec plugin "/opt/bin/kubelogin" exited with code 1: AADSTS700016 tenant 0000-1111';
    const { send, lines } = setup(() => Promise.reject(new AdmissionError(detail, { code: "ERR_CREDENTIALS" })));
    // The reply's generic 500 naming the uid is pinned word for word by review-response.test.ts.
    const reply = await send(buildReview(buildPod(), { uid: "uid-9" }));
    expect(reply.response).toMatchObject({ uid: "uid-9", allowed: false, status: { code: 500 } });
    expect(JSON.stringify(reply)).not.toContain("kubelogin");
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ uid: "uid-9", errors: "ERR_CREDENTIALS", credentials: detail });
  });

  const refusal = { allowed: false as const, errors: [createRefusal("ERR_CREDSPEC_NOT_ALLOWED", "x", "pod")] };
  it.each([
    ["nothing for an allowed review below the log level", { allowed: true }, "info", "debug", undefined],
    ["a refused one at warn, whatever its allowed level", refusal, "info", "debug", "warn"],
    ["an allowed review at debug when debug is logged", { allowed: true }, "debug", "debug", "debug"],
    ["an allowed review at info on a serverless platform", { allowed: true }, "info", "info", "info"],
  ] as const)(
    "logs %s, so info beside Prometheus shows refusals only",
    async (_what, outcome, level, allowedLevel, logged) => {
      const { send, lines } = setup(() => Promise.resolve(outcome), level, allowedLevel);
      await send(buildReview(buildPod(), { uid: "uid-1" }));
      expect(lines.map((l) => JSON.parse(l) as unknown)).toEqual(
        logged === undefined
          ? []
          : [expect.objectContaining({ level: logged, msg: "review", uid: "uid-1", allowed: outcome.allowed })],
      );
    },
  );

  it("logs one line per review with names, codes and duration, never the pod", async () => {
    const { send, lines, metrics } = setup(() =>
      Promise.resolve({
        allowed: false,
        errors: [
          createRefusal("ERR_CREDSPEC_NOT_ALLOWED", "x", "pod"),
          new AdmissionError("y", { code: "ERR_KUBE_API" }),
        ],
      }),
    );
    const pod = buildPod({ containers: [{ name: "app", env: [{ name: "PASSWORD", value: "hunter2" }] }] });
    await send(buildReview(pod, { uid: "uid-1", dryRun: true }));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toEqual({
      time: "1970-01-01T00:00:00.000Z",
      level: "warn",
      msg: "review",
      function: "expand",
      uid: "uid-1",
      kind: "Pod",
      namespace: "ns1",
      name: "web",
      operation: "CREATE",
      dryRun: true,
      allowed: false,
      code: 500,
      errors: "ERR_CREDSPEC_NOT_ALLOWED,ERR_KUBE_API",
      durationMs: 7,
      kubeRequests: 0,
      cacheHits: 0,
      cacheMisses: 0,
    });
    expect(lines[0]).not.toContain("hunter2");
    expect(metrics.snapshot()).toEqual({ expand_reviews_total: 1, expand_denied_500_total: 1 });
  });

  it("logs the class name of a plain Error from the client, never its message", async () => {
    const test = createTestApp({
      gmsa: createFakeGmsaClient({ fail: () => new TypeError("fetch failed: token abc") }),
    });
    const pod = podWithGmsaAt("pod", { gmsaCredentialSpecName: "webapp1" });
    await postReview(test.app, "expand", buildReview(pod, { uid: "uid-9" }));
    expect(test.logs()).toEqual([
      expect.objectContaining({ uid: "uid-9", code: 500, errors: "ERR_INTERNAL", cause: "TypeError" }),
    ]);
    expect(test.rawLogs()).not.toContain("token abc");
  });
});

const never = new AbortController().signal;
const serviceAccount = { namespace: "ns1", serviceAccount: "sa1" };
const alice = { namespace: "ns1", user: { username: "alice", groups: ["devs"] } };

function plan(credspecs: string[], access: LoadPlan["access"] = [], randomBytes = 0): LoadPlan {
  return { credspecs: new Set(credspecs), access, randomBytes };
}

/** Access reviews of the service account for `mine`, then of alice for `hers`. */
const access = (mine: string[], hers: string[]): LoadPlan["access"] => [
  { subject: serviceAccount, names: new Set(mine) },
  { subject: alice, names: new Set(hers) },
];

function contextOf(gmsa: GmsaClient, signal = never) {
  return { gmsa, signal, randomBytes: (n: number) => new Uint8Array(n).fill(7) };
}

describe("loadFacts", () => {
  it("loads each credspec once and turns failures into facts", async () => {
    const gmsa = createFakeGmsaClient({
      credspecs: { webapp1: WEBAPP1_CREDSPEC, empty: WITHOUT_CONTENTS },
      fail: (_call, name) => (name === "broken" ? new AdmissionError("503", { code: "ERR_KUBE_API" }) : undefined),
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
    const facts = await loadFacts(plan([], access(["a", "b"], ["a", "b"])), contextOf(gmsa));
    expect(facts.access.map((answers) => Object.fromEntries(answers))).toEqual([
      {
        a: { ok: true, value: { allowed: true, reason: "" } },
        b: { ok: true, value: { allowed: false, reason: "no" } },
      },
      {
        a: { ok: true, value: { allowed: false, reason: "no" } },
        b: { ok: true, value: { allowed: true, reason: "" } },
      },
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
    await loadFacts(plan(["a", "b"], access(["a", "b"], ["a"])), contextOf(gmsa));
    expect(gmsa.maxInFlight()).toBe(5);
  });

  it("draws random bytes only when the plan asks for them", async () => {
    const gmsa = createFakeGmsaClient();
    expect((await loadFacts(plan([], [], 15), contextOf(gmsa))).randomBytes).toEqual(new Uint8Array(15).fill(7));
    expect((await loadFacts(plan([]), contextOf(gmsa))).randomBytes).toHaveLength(0);
    expect(gmsa.callCount()).toBe(0);
  });

  it("turns a call that outlives the deadline into a fact (500), even if it never settles, or a deadline already passed", async () => {
    const started = Date.now();
    const hanging: GmsaClient = { ...createFakeGmsaClient(), getCredSpecContents: () => new Promise(() => {}) };
    const facts = await loadFacts(plan(["a"]), contextOf(hanging, AbortSignal.timeout(20)));
    expect(facts.credspecs.get("a")).toMatchObject({
      ok: false,
      error: { code: "ERR_DEADLINE_EXCEEDED", status: 500 },
    });
    expect(Date.now() - started).toBeLessThan(500);
    const passed = await loadFacts(plan(["webapp1"]), contextOf(createFakeGmsaClient(), AbortSignal.abort()));
    expect(passed.credspecs.get("webapp1")).toMatchObject({ ok: false, error: { code: "ERR_DEADLINE_EXCEEDED" } });
  });

  it("lets a client that honours the signal fail with its own error, which names what it waited for", async () => {
    const message = 'reading GMSACredentialSpec "x": exec plugin "p": no credential before the deadline';
    const signal = AbortSignal.timeout(20);
    const honouring: GmsaClient = {
      ...createFakeGmsaClient(),
      getCredSpecContents: () =>
        new Promise((_resolve, reject) =>
          signal.addEventListener("abort", () =>
            reject(new AdmissionError(message, { code: "ERR_DEADLINE_EXCEEDED" })),
          ),
        ),
    };
    const facts = await loadFacts(plan(["a"]), contextOf(honouring, signal));
    expect(facts.credspecs.get("a")).toMatchObject({ ok: false, error: { code: "ERR_DEADLINE_EXCEEDED", message } });
  });
});
