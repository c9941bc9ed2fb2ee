import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import {
  findCallerAuthMode,
  type CallerAuthDeps,
  type CallerAuthOptions,
  type ClientCertificateReader,
} from "../../../../shared/caller-auth/index.ts";
import type { AppEnv } from "../../../../shared/http/env.ts";
import { createErrorHandler } from "../../../../shared/http/on-error.ts";
import { createJsonLogger } from "../../../../shared/log.ts";
import { createCallerAuthTestApp } from "../../../support/app.ts";
import { gmsaReview } from "../../../support/reviews.ts";
import { post, watchedBody } from "../../../support/requests.ts";
import { FUNCTION_NAMES } from "../../../../shared/config/index.ts";

type ClientCertificate = NonNullable<ReturnType<ClientCertificateReader>>;

const TOKEN = "tok-0123456789abcdef0123456789";
const OTHER_TOKEN = "tok-fedcba9876543210fedcba9876";
const SECRET = "s3cr3t-path-segment-0123456789-abcdefgh";

async function expectAdmission(res: Response, uid = "uid-1"): Promise<void> {
  expect(res.status).toBe(200);
  const body = (await res.json()) as { response: { uid: string; allowed: boolean } };
  expect(body.response).toMatchObject({ uid, allowed: true });
}

describe("caller auth: bearer", () => {
  const auth = { mode: "bearer", tokens: [TOKEN, OTHER_TOKEN] } as const;

  it("accepts each configured token, the scheme in any letter case", async () => {
    const { app } = createCallerAuthTestApp(auth);
    for (const [authorization, fn] of [
      [`Bearer ${TOKEN}`, "expand"],
      [`bearer ${OTHER_TOKEN}`, "authorize"],
    ] as const) {
      await expectAdmission(await app.request(`/${fn}`, post(gmsaReview(), { authorization })));
    }
  });

  it.each([
    ["no header", {}],
    ["a wrong token", { authorization: "Bearer tok-0123456789abcdef0123456780" }],
    ["a prefix of a token", { authorization: `Bearer ${TOKEN.slice(0, -1)}` }],
    ["a token with a suffix", { authorization: `Bearer ${TOKEN}x` }],
    ["two tokens joined", { authorization: `Bearer ${TOKEN},${OTHER_TOKEN}` }],
    ["two tokens apart", { authorization: `Bearer ${TOKEN} ${OTHER_TOKEN}` }],
    ["another scheme", { authorization: `Basic ${TOKEN}` }],
    ["an empty bearer", { authorization: "Bearer " }],
  ])(
    "refuses %s at either function with 401 and a Bearer challenge, counting no review",
    async (_name, headers: Record<string, string>) => {
      const { app, gmsa, deps } = createCallerAuthTestApp(auth);
      for (const fn of FUNCTION_NAMES) {
        const res = await app.request(`/${fn}`, post(gmsaReview(), headers));
        expect(res.status).toBe(401);
        expect(res.headers.get("www-authenticate")).toBe('Bearer realm="gmsa-webhooks"');
        expect(await res.json()).toEqual({ error: "unauthenticated caller" });
      }
      expect(gmsa.calls).toBe(0);
      expect(deps.metrics.snapshot()).toEqual({});
    },
  );

  it("answers 401 before reading the body, judging its type or method, or calling the API server", async () => {
    const { app, gmsa } = createCallerAuthTestApp(auth);
    const watched = watchedBody("\u0000garbage");
    const res = await app.request("/authorize", post(watched.body, { "content-type": "text/plain" }));
    expect(res.status).toBe(401);
    expect(watched.pulled()).toBe(false);
    expect((await app.request("/authorize", { method: "GET" })).status).toBe(401);
    expect(gmsa.calls).toBe(0);
  });

  it("logs a refusal with a reason and never the token", async () => {
    const { app, logger } = createCallerAuthTestApp(auth);
    await app.request("/expand", post(gmsaReview(), { authorization: `Bearer ${TOKEN}x` }));
    await app.request("/expand", post(gmsaReview(), { authorization: `Bearer ${TOKEN}` }));
    expect(logger.lines.find((l) => l.msg === "caller not authenticated")?.fields).toEqual({
      mode: "bearer",
      status: 401,
      reason: "unknown bearer token",
    });
    expect(logger.text()).not.toContain(TOKEN);
  });
});

describe("caller auth: path", () => {
  const auth = { mode: "path", secrets: [SECRET] } as const;

  it.each([
    ["no secret", "/authorize"],
    ["a wrong secret", `/authorize/${SECRET.replace("s3", "s4")}`],
    ["a shorter secret", `/authorize/${SECRET.slice(0, -1)}`],
    ["a longer secret", `/authorize/${SECRET}0`],
    ["the secret percent-encoded wrong", `/authorize/${SECRET.slice(0, -1)}%2F`],
  ])("refuses %s with 401 and no API call", async (_name, path) => {
    const { app, gmsa } = createCallerAuthTestApp(auth);
    const res = await app.request(path, post(gmsaReview()));
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBeNull();
    expect(gmsa.calls).toBe(0);
  });

  it("serves the functions at /<name>/<secret>, with either secret while one replaces the other (rotation)", async () => {
    const next = "the-next-path-secret-0123456789-abcdefghij";
    const { app } = createCallerAuthTestApp({ mode: "path", secrets: [SECRET, next] });
    await expectAdmission(await app.request(`/authorize/${SECRET}?timeout=10s`, post(gmsaReview())));
    await expectAdmission(await app.request(`/expand/${next}`, post(gmsaReview())));
    expect((await app.request(`/expand/${next.slice(1)}`, post(gmsaReview()))).status).toBe(401);
  });

  it("accepts the secret with unreserved characters percent-encoded (the same URL per RFC 3986)", async () => {
    const { app } = createCallerAuthTestApp(auth);
    const encoded = SECRET.replace("s", "%73");
    await expectAdmission(await app.request(`/expand/${encoded}`, post(gmsaReview())));
  });

  it("answers 404 for paths below the secret and keeps /healthz, /version open", async () => {
    const { app } = createCallerAuthTestApp(auth);
    expect((await app.request(`/expand/${SECRET}/more`, post(gmsaReview()))).status).toBe(404);
    expect((await app.request("/healthz")).status).toBe(200);
    expect((await app.request("/version")).status).toBe(200);
  });

  it("never logs the secret: not on success, refusal, HTTP error or denial", async () => {
    const { app, logger } = createCallerAuthTestApp(auth, {
      gmsa: {
        getCredSpecContents: () => Promise.reject(new TypeError("boom")),
        canUseCredSpec: () => Promise.resolve({ allowed: false, reason: "no" }),
        getPod: () => Promise.reject(new TypeError("boom")),
      },
    });
    await app.request(`/expand/${SECRET}`, post(gmsaReview()));
    await app.request(`/authorize/${SECRET}`, post(gmsaReview()));
    await app.request(`/authorize/${SECRET}`, post("{not json"));
    await app.request(`/authorize/${SECRET}`, { method: "PUT" });
    await app.request(`/authorize/${SECRET.slice(0, -1)}`, post(gmsaReview()));
    expect(logger.lines.length).toBeGreaterThanOrEqual(3);
    expect(logger.text()).not.toContain(SECRET.slice(0, 16));
  });
});

describe("caller auth: mtls verdicts", () => {
  const cert: ClientCertificate = {
    presented: true,
    authorized: true,
    error: undefined,
    commonNames: ["kube-apiserver"],
  };
  /** The status of a request whose connection presented `presented`, and the reasons logged. */
  async function verdict(presented: ClientCertificate | undefined, clientNames = ["kube-apiserver"]) {
    const lines: string[] = [];
    const logger = createJsonLogger({ level: "debug", write: (line) => lines.push(line) });
    const res = await app(
      { mode: "mtls", clientCaFile: "ca.pem", clientNames },
      { logger, clientCertificate: () => presented },
    ).request("/", { method: "POST" });
    return { status: res.status, logged: lines.join("\n") };
  }

  it("accepts a verified certificate with an allowed name", async () => {
    expect((await verdict(cert)).status).toBe(200);
    expect((await verdict({ ...cert, commonNames: ["anyone"] }, [])).status).toBe(200);
  });

  it("refuses no certificate and an unverified one (401), a verified one with another name (403)", async () => {
    expect((await verdict(undefined)).status).toBe(401);
    expect((await verdict({ ...cert, presented: false, authorized: false })).status).toBe(401);
    const expired = await verdict({ ...cert, authorized: false, error: "CERT_HAS_EXPIRED" });
    expect(expired.status).toBe(401);
    expect(expired.logged).toContain('"reason":"CERT_HAS_EXPIRED"');
    expect((await verdict({ ...cert, commonNames: ["intruder"] })).status).toBe(403);
    // A runtime that reads no client certificates refuses every caller.
    const unread = await app({ mode: "mtls", clientCaFile: "ca.pem", clientNames: [] }).request("/", {
      method: "POST",
    });
    expect(unread.status).toBe(401);
  });
});

// The middleware alone, in front of an answer that lets the caller in.
const silentLogger = createJsonLogger({ level: "error", write: () => undefined });

function app(options: CallerAuthOptions, deps: CallerAuthDeps = { logger: silentLogger }) {
  const hono = new Hono<AppEnv>();
  hono.onError(createErrorHandler(silentLogger));
  return hono.post("/", findCallerAuthMode(options).middleware(options, deps), (c) => c.text("in"));
}
