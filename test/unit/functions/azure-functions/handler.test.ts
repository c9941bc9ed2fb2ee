import { HttpRequest, InvocationContext, type HttpResponseInit } from "@azure/functions";
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { AZURE_ROUTES, createAzureHandler } from "../../../../functions/azure-functions/handler.ts";
import { createCallerAuthTestApp } from "../../../support/app.ts";
import { itServesTheApp, startHandler, type ServerlessPlatform } from "../serverless-handler-cases.ts";

const BASE = "https://gmsa-webhooks.azurewebsites.net";

/** A request as the Functions host hands it to a v4 handler. */
function request(method: string, path: string, headers: Record<string, string> = {}, body?: string): HttpRequest {
  return new HttpRequest({
    method,
    url: `${BASE}${path}`,
    headers,
    ...(body === undefined ? {} : { body: { string: body } }),
  });
}

function text(response: HttpResponseInit): string {
  expect(response.body).toBeInstanceOf(Uint8Array);
  return new TextDecoder().decode(response.body as Uint8Array);
}

const azure: ServerlessPlatform = {
  name: "Azure Functions",
  handler: (env, log) => {
    const handler = createAzureHandler(env, log);
    return async (method, path, headers, body) => {
      const context = new InvocationContext({ functionName: "expand", invocationId: "inv-1" });
      const response = await handler(request(method, path, headers, body), context);
      return {
        status: response.status ?? 200,
        contentType: new Headers(response.headers).get("content-type"),
        text: text(response),
      };
    };
  },
};

describe("createAzureHandler", () => {
  itServesTheApp(azure);

  it("answers 404 under the default api/ prefix, which host.json must remove", async () => {
    const { review } = await startHandler(azure);
    expect((await review("expand", undefined, "/api/expand")).status).toBe(404);
    const host = await readFile(new URL("../../../../functions/azure-functions/host.json", import.meta.url), "utf8");
    expect(JSON.parse(host)).toMatchObject({ version: "2.0", extensions: { http: { routePrefix: "" } } });
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
