import { describe, expect, it } from "vitest";
import pkg from "../../../package.json" with { type: "json" };
import { BODY_LIMIT_BYTES } from "../../../functions/app.ts";
import { createJsonMetrics } from "../../../functions/metrics.ts";
import { createTestApp, postReview } from "../../support/app.ts";
import { post } from "../../support/requests.ts";
import { annotationKeys } from "../../../shared/policy/pod-gmsa.ts";
import { createFakeGmsaClient } from "../../support/fake-gmsa-client.ts";
import { buildPod, WEBAPP1_CREDSPEC } from "../../support/pods.ts";
import { applyReplyPatch, buildReview } from "../../support/reviews.ts";
import { FUNCTION_NAMES } from "../../../shared/config/index.ts";
import type { Readiness } from "../../../shared/kube/readiness.ts";

const json = { "content-type": "application/json" };

describe("createApp", () => {
  it("answers GET /healthz with 200 ok and GET /version with the name, version and functions", async () => {
    const { app } = createTestApp({ functions: ["authorize"] });
    const healthz = await app.request("/healthz");
    expect([healthz.status, await healthz.text()]).toEqual([200, "ok"]);
    const version = await app.request("/version");
    expect(version.status).toBe(200);
    expect(await version.json()).toEqual({ name: "gmsa-webhooks", version: pkg.version, functions: ["authorize"] });
  });

  it.each(["/", "/expand/extra", "/validate", "/healthz/x", "/EXPAND"])(
    "answers an unknown path %j with 404",
    async (path) => {
      expect((await createTestApp().app.request(path, post("{}"))).status).toBe(404);
    },
  );

  it.each(["GET", "PUT", "DELETE", "PATCH"])(
    "answers %s /expand and /authorize with 405 and Allow: POST",
    async (method) => {
      const { app } = createTestApp();
      for (const path of ["/expand", "/authorize"]) {
        const res = await app.request(path, { method, ...(method === "GET" ? {} : { body: "{}", headers: json }) });
        expect(res.status).toBe(405);
        expect(res.headers.get("allow")).toBe("POST");
      }
    },
  );

  it.each([
    [String(BODY_LIMIT_BYTES + 1), 413, `request body exceeds ${BODY_LIMIT_BYTES} bytes`],
    ...["abc", "12abc", "-1", "1e3", " "].map((length) => [length, 400, "Content-Length is not a decimal number"]),
  ])("refuses a Content-Length of %j with %i before reading the body", async (length, status, error) => {
    const { app, deps } = createTestApp();
    let pulled = false;
    const body = new ReadableStream<Uint8Array>({ pull: () => void (pulled = true) }, { highWaterMark: 0 });
    const res = await app.request("/expand", post(body, { "content-length": length as string }));
    expect(res.status).toBe(status);
    expect(await res.json()).toEqual({ error });
    expect(pulled).toBe(false);
    expect(deps.metrics.snapshot()).toEqual({});
  });

  it("reads a review with a declared length without touching the request's body stream", async () => {
    // On @hono/node-server, reading `body` builds a web Request and stream for the request; `text()` reads the socket.
    const { app } = createTestApp();
    const text = JSON.stringify(buildReview(buildPod()));
    const req = new Request(
      "http://localhost/expand",
      post(text, { "content-length": String(new TextEncoder().encode(text).length) }),
    );
    let bodyReads = 0;
    const stream = req.body;
    Object.defineProperty(req, "body", { get: () => (bodyReads++, stream) });
    const res = await app.request(req);
    expect(res.status).toBe(200);
    expect(bodyReads).toBe(0);
  });

  it("accepts a chunked body under the limit and refuses one over it, sent without content-length, with 413, reading no further", async () => {
    const { app, deps } = createTestApp();
    const bytes = new TextEncoder().encode(JSON.stringify(buildReview(buildPod())));
    const under = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.subarray(0, 10));
        controller.enqueue(bytes.subarray(10));
        controller.close();
      },
    });
    expect((await app.request(new Request("http://localhost/expand", post(under)))).status).toBe(200);
    const chunk = new Uint8Array(1024 * 1024).fill(0x20);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          if (sent++ < 100) controller.enqueue(chunk);
          else controller.close();
        },
      },
      { highWaterMark: 0 },
    );
    const req = new Request("http://localhost/expand", post(body));
    expect(req.headers.get("content-length")).toBeNull();
    const res = await app.request(req);
    expect(res.status).toBe(413);
    expect(sent).toBe(9);
    expect(deps.metrics.snapshot()).toEqual({ expand_reviews_total: 1, expand_allowed_total: 1 });
  });

  it("answers 400 when the body breaks off (the caller went away)", async () => {
    const { app } = createTestApp();
    const body = new ReadableStream({
      pull(controller) {
        controller.error(new Error("socket hang up"));
      },
    });
    const res = await app.request(new Request("http://localhost/expand", post(body)));
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: "the request body could not be read" });
  });

  it.each([
    ["unparseable JSON", "{not json"],
    ["an empty body", ""],
    ["JSON that is not an AdmissionReview", JSON.stringify({ hello: "world" })],
    [
      "an AdmissionReview without request",
      JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview" }),
    ],
  ])("refuses %s with 400", async (_what, body) => {
    const { app, deps } = createTestApp();
    const res = await app.request("/authorize", post(body));
    expect(res.status).toBe(400);
    expect(deps.metrics.snapshot()).toEqual({});
  });

  // Refusals, the body left unread and the token's acceptance are caller-auth/index.test.ts's bearer tests.
  it("calls onCallerAuthenticated for a review whose caller passed, never for a refused one or an open route, which bearer auth leaves open", async () => {
    let calls = 0;
    const { app } = createTestApp({
      callerAuth: { mode: "bearer", tokens: ["s3cret-token"] },
      onCallerAuthenticated: () => void calls++,
    });
    const review = JSON.stringify(buildReview(buildPod()));
    expect((await app.request("/authorize", post(review, { authorization: "Bearer wrong" }))).status).toBe(401);
    const open = ["/healthz", "/version", "/metrics", "/nothing"].map(async (path) => (await app.request(path)).status);
    expect(await Promise.all(open)).toEqual([200, 200, 200, 404]);
    expect(calls).toBe(0);
    await postReview(app, "expand", buildReview(buildPod()), { headers: { authorization: "Bearer s3cret-token" } });
    expect(calls).toBe(1);
  });

  describe("METRICS_TOKENS", () => {
    const ADMISSION = "admission-token-0123456789";
    const SCRAPE = "scrape-token-0123456789abc";
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

    it("puts /metrics behind its own tokens: 401 with a Bearer challenge without one or with the admission token; the scrape token sends no review", async () => {
      const { app } = createTestApp({ callerAuth: { mode: "bearer", tokens: [ADMISSION] }, metricsTokens: [SCRAPE] });
      for (const headers of [{}, bearer(ADMISSION)]) {
        const res = await app.request("/metrics", { headers });
        expect(res.status).toBe(401);
        expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
      }
      expect((await app.request("/metrics", { headers: bearer(SCRAPE) })).status).toBe(200);
      expect((await app.request("/expand", post(JSON.stringify(buildReview(buildPod())), bearer(SCRAPE)))).status).toBe(
        401,
      );
    });

    it("serves /metrics at /metrics in path mode, never below the admission secret", async () => {
      const secret = "p".repeat(40);
      const { app } = createTestApp({ callerAuth: { mode: "path", secrets: [secret] } });
      expect((await app.request("/metrics")).status).toBe(200);
      expect((await app.request(`/metrics/${secret}`)).status).toBe(404);
    });
  });

  it("answers /readyz 503 once the process is shutting down", async () => {
    let ready = true;
    const { app } = createTestApp({ ready: () => ready });
    expect((await app.request("/readyz")).status).toBe(200);
    ready = false;
    const res = await app.request("/readyz");
    expect(res.status).toBe(503);
    expect(await res.text()).toBe("shutting down");
  });

  it("answers /readyz 503 naming what is missing while the readiness check fails, and logs why in full (/healthz stays 200)", async () => {
    const detail =
      "checking readiness: may this function get gmsacredentialspecs.windows.k8s.io: API server answered 401";
    const { app, logs } = createTestApp({
      readiness: () => Promise.resolve({ ready: false, reason: "the API server refused our credential", detail }),
    });
    const res = await app.request("/readyz");
    expect(res.status).toBe(503);
    expect(await res.text()).toBe("not ready: the API server refused our credential");
    expect(logs()).toContainEqual(
      expect.objectContaining({
        level: "warn",
        msg: "not ready",
        reason: "the API server refused our credential",
        detail,
      }),
    );
    expect((await app.request("/healthz")).status).toBe(200);
  });

  it("logs readiness when it changes, not at every probe", async () => {
    let answer: Readiness = { ready: false, reason: "API server unreachable", detail: "connect ECONNREFUSED" };
    const { app, logs } = createTestApp({ readiness: () => Promise.resolve(answer) });
    const probe = async () => (await app.request("/readyz")).status;
    expect([await probe(), await probe(), await probe()]).toEqual([503, 503, 503]);
    answer = { ready: true };
    expect([await probe(), await probe()]).toEqual([200, 200]);
    answer = { ready: false, reason: "API server unreachable", detail: "connect ECONNREFUSED" };
    expect(await probe()).toBe(503);
    expect(
      logs()
        .filter((line) => /ready/.test(String(line.msg)))
        .map((line) => line.msg),
    ).toEqual(["not ready", "ready", "not ready"]);
  });

  it("serves counters of reviews and extra metrics on /metrics", async () => {
    const { app } = createTestApp({ metrics: createJsonMetrics(() => ({ exec: { runs_total: 3 } })) });
    await postReview(app, "expand", buildReview(buildPod()));
    const res = await app.request("/metrics");
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.json()).toEqual({ expand_reviews_total: 1, expand_allowed_total: 1, exec_runs_total: 3 });
  });

  it.each(FUNCTION_NAMES)("answers /%s with a 500 denial before ?timeout=1s when the client hangs", async (fn) => {
    const gmsa = createFakeGmsaClient({ hang: true });
    const { app } = createTestApp({ gmsa });
    const pod = buildPod({
      windowsOptions: {
        gmsaCredentialSpecName: "webapp1",
        ...(fn === "authorize" ? { gmsaCredentialSpec: "{}" } : {}),
      },
    });
    const started = performance.now();
    const reply = await postReview(app, fn, buildReview(pod), { query: "?timeout=1s" });
    const elapsed = performance.now() - started;
    expect(reply.response.allowed).toBe(false);
    expect(reply.response.status?.code).toBe(500);
    expect(reply.response.status?.message).toContain("deadline");
    expect(elapsed).toBeLessThan(1000);
    expect(gmsa.callCount()).toBeGreaterThan(0);
  });

  // A GMSA field at each place, or on a new ephemeral container: the rule table pins expand's output and has authorize
  // allow that very pod ("... treats a HostProcess pod by the same rules", "... a new ephemeral container like a create").
  it.each([undefined, "app", "setup"])(
    "allows with authorize what expand made of alpha annotations for %s",
    async (container) => {
      const { app } = createTestApp({
        gmsa: createFakeGmsaClient({
          credspecs: { webapp1: WEBAPP1_CREDSPEC },
          allowed: [{ namespace: "ns1", serviceAccount: "sa1", credSpecName: "webapp1" }],
        }),
        settings: { randomHostname: true },
      });
      const pod = buildPod({ annotations: { [annotationKeys(container).nameKey]: "webapp1" } });
      const expanded = await postReview(app, "expand", buildReview(pod));
      expect(expanded.response.allowed).toBe(true);
      const authorized = await postReview(app, "authorize", buildReview(applyReplyPatch(pod, expanded)));
      expect(authorized.response).toEqual({
        uid: authorized.response.uid,
        allowed: true,
        auditAnnotations: { decision: "allowed", credspecs: "webapp1" },
      });
    },
  );
});
