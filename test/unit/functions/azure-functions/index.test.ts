import type * as AzureFunctions from "@azure/functions";
import { HttpRequest, InvocationContext, type HttpFunctionOptions } from "@azure/functions";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AZURE_ROUTES } from "../../../../functions/azure-functions/handler.ts";
import { serverlessEnv } from "../../../support/serverless-env.ts";

const registered = vi.hoisted(() => new Map<string, HttpFunctionOptions>());

// Outside the Functions host, @azure/functions skips registration; record it instead.
vi.mock("@azure/functions", async (importOriginal) => {
  const original = await importOriginal<typeof AzureFunctions>();
  return {
    ...original,
    app: { ...original.app, http: (name: string, options: HttpFunctionOptions) => registered.set(name, options) },
  };
});

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

describe("the Azure Functions entry", () => {
  it("registers one anonymous function per route of the app, every method left to the app", async () => {
    for (const [name, value] of Object.entries(await serverlessEnv())) vi.stubEnv(name, value);
    vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    await import("../../../../functions/azure-functions/index.ts");
    expect([...registered.keys()].sort()).toEqual(["authorize", "expand", "healthz", "metrics", "readyz", "version"]);
    for (const [name, options] of registered) {
      expect(options.route).toBe(AZURE_ROUTES[name as keyof typeof AZURE_ROUTES]);
      expect(options.authLevel).toBe("anonymous");
      expect(options.methods).toEqual(expect.arrayContaining(["GET", "POST"]));
    }
    const healthz = registered.get("healthz");
    const response = await healthz!.handler(
      new HttpRequest({ method: "GET", url: "https://app.azurewebsites.net/healthz" }),
      new InvocationContext(),
    );
    expect(response).toMatchObject({ status: 200 });
    // Every function shares one app, built once.
    expect(new Set([...registered.values()].map((options) => options.handler)).size).toBe(1);
  });
});
