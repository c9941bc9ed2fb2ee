import { describe, expect, it } from "vitest";
import { AZURE_ROUTES } from "../../../../functions/azure-functions/routes.ts";
import { createTestApp } from "../../../support/app.ts";
import { FUNCTION_NAMES } from "../../../../shared/config/index.ts";

/** The first path segment of a Hono route or an Azure route template. */
const base = (path: string): string => path.replace(/^\//, "").split("/")[0] ?? "";

describe("AZURE_ROUTES", () => {
  it.each([
    { mode: "none", callerAuth: { mode: "none" } as const },
    { mode: "path", callerAuth: { mode: "path", secrets: ["s".repeat(48)] } as const },
  ])("registers every path the app serves with CALLER_AUTH=$mode, so none is left to the host's 404", ({ callerAuth }) => {
    const { app } = createTestApp({ functions: FUNCTION_NAMES, callerAuth });
    const served = new Set(app.routes.map((route) => route.path).filter((path) => path !== "/*").map(base));
    expect([...served].sort()).toEqual(Object.values(AZURE_ROUTES).map(base).sort());
  });

  it("lets the protected routes carry a path secret segment", () => {
    for (const name of [...FUNCTION_NAMES, "metrics"] as const) expect(AZURE_ROUTES[name]).toMatch(/^[a-z]+\/\{\*\w+\}$/);
  });
});
