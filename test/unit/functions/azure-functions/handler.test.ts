import { HttpRequest, InvocationContext, type HttpResponseInit } from "@azure/functions";
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { AZURE_ROUTES, createAzureHandler } from "../../../../functions/azure-functions/handler.ts";
import type { AdmissionReviewResponse } from "../../../../shared/admission/review.ts";
import { createCallerAuthTestApp } from "../../../support/app.ts";
import { buildPod } from "../../../support/pods.ts";
import { buildReview } from "../../../support/reviews.ts";
import { CALLER_TOKEN, serverlessEnv, STATIC_KUBE_TOKEN } from "../../../support/serverless-env.ts";
import { FUNCTION_NAMES } from "../../../../shared/config/index.ts";

const BASE = "https://gmsa-webhooks.azurewebsites.net";
const auth = { authorization: `Bearer ${CALLER_TOKEN}` };
const json = { "content-type": "application/json" };

async function azure(overrides: Record<string, string | undefined> = {}) {
  const lines: string[] = [];
  const errors: string[] = [];
  const handler = createAzureHandler(await serverlessEnv(overrides), {
    write: (line) => lines.push(line),
    error: (message) => errors.push(message),
  });
  const call = (request: HttpRequest) =>
    handler(request, new InvocationContext({ functionName: "expand", invocationId: "inv-1" }));
  return { call, lines, errors };
}

/** A request as the Functions host hands it to a v4 handler. */
function request(method: string, path: string, headers: Record<string, string> = {}, body?: string): HttpRequest {
  return new HttpRequest({
    method,
    url: `${BASE}${path}`,
    headers,
    ...(body === undefined ? {} : { body: { string: body } }),
  });
}

function reviewRequest(
  fn: "expand" | "authorize",
  headers: Record<string, string> = { ...json, ...auth },
): HttpRequest {
  return request("POST", `/${fn}?timeout=10s`, headers, JSON.stringify(buildReview(buildPod(), { uid: "uid-azure" })));
}

function text(response: HttpResponseInit): string {
  expect(response.body).toBeInstanceOf(Uint8Array);
  return new TextDecoder().decode(response.body as Uint8Array);
}

describe("createAzureHandler", () => {
  it.each(FUNCTION_NAMES)("allows a pod without GMSA at /%s with no API call (200, uid echoed)", async (fn) => {
    const { call, lines } = await azure();
    const response = await call(reviewRequest(fn));
    expect(response.status).toBe(200);
    expect(new Headers(response.headers).get("content-type")).toMatch(/^application\/json/);
    const reply = JSON.parse(text(response)) as AdmissionReviewResponse;
    expect(reply.response).toMatchObject({ uid: "uid-azure", allowed: true });
    expect(reply.response.patch).toBeUndefined();
    expect(lines.join("\n")).not.toContain(CALLER_TOKEN);
    expect(lines.join("\n")).not.toContain(STATIC_KUBE_TOKEN);
  });

  it("passes the app's answers through: /healthz without caller auth, 401 without the token, 405 for GET /expand", async () => {
    const { call } = await azure();
    const response = await call(request("GET", "/healthz"));
    expect([response.status, text(response)]).toEqual([200, "ok"]);
    expect((await call(reviewRequest("expand", json))).status).toBe(401);
    expect((await call(request("GET", "/expand", auth))).status).toBe(405);
  });

  it("serves CALLER_AUTH=path at /expand/<secret> (the catch-all route) and refuses the plain path (401)", async () => {
    const secret = "p".repeat(48);
    const { call } = await azure({
      CALLER_AUTH: "path",
      CALLER_AUTH_TOKENS: undefined,
      CALLER_AUTH_PATH_SECRET: secret,
    });
    const body = JSON.stringify(buildReview(buildPod(), { uid: "uid-path" }));
    const response = await call(request("POST", `/expand/${secret}?timeout=10s`, json, body));
    expect(response.status).toBe(200);
    expect((JSON.parse(text(response)) as AdmissionReviewResponse).response).toMatchObject({
      uid: "uid-path",
      allowed: true,
    });
    expect((await call(request("POST", "/expand", json, body))).status).toBe(401);
  });

  it("answers 404 under the default api/ prefix, which host.json must remove", async () => {
    const { call } = await azure();
    expect((await call(request("POST", "/api/expand", { ...json, ...auth }, "{}"))).status).toBe(404);
    const host = JSON.parse(
      await readFile(new URL("../../../../functions/azure-functions/host.json", import.meta.url), "utf8"),
    ) as {
      version: string;
      extensions: { http: { routePrefix: string } };
    };
    expect(host.version).toBe("2.0");
    expect(host.extensions.http.routePrefix).toBe("");
  });

  // CALLER_AUTH=none is refused only where the handler tells the configuration it runs on Azure Functions.
  it("answers 503 to every request when misconfigured, logging every problem once and no secret", async () => {
    const { call, errors } = await azure({ CALLER_AUTH: "none", LOG_LEVEL: "loud" });
    for (const req of [reviewRequest("expand"), request("GET", "/healthz")]) {
      const response = await call(req);
      expect(response.status).toBe(503);
      expect(JSON.parse(text(response))).toEqual({ error: "gmsa-webhooks is misconfigured; see the function's logs" });
    }
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(
      "CALLER_AUTH=none lets anyone who reaches the function in, and Azure Functions is reachable",
    );
    expect(errors[0]).toContain("LOG_LEVEL");
    expect(errors[0]).not.toContain(CALLER_TOKEN);
  });
});

/** The first path segment of a path or an Azure route template. */
const base = (path: string): string => path.replace(/^\//, "").split("/")[0] ?? "";

describe("AZURE_ROUTES", () => {
  it.each([
    { mode: "none", callerAuth: { mode: "none" } as const },
    { mode: "path", callerAuth: { mode: "path", secrets: ["s".repeat(48)] } as const },
  ])(
    "registers every route the app declares with CALLER_AUTH=$mode, so none is left to the host's 404",
    ({ callerAuth }) => {
      const { app } = createCallerAuthTestApp(callerAuth);
      const served = new Set(app.routes.map((route) => base(route.path)));
      expect([...served].sort()).toEqual(Object.values(AZURE_ROUTES).map(base).sort());
    },
  );

  it("lets the review routes carry a path secret segment", () => {
    for (const name of ["expand", "authorize"] as const) expect(AZURE_ROUTES[name]).toMatch(/^[a-z]+\/\{\*\w+\}$/);
  });
});
