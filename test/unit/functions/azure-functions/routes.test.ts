import { describe, expect, it } from "vitest";
import { AZURE_ROUTES } from "../../../../functions/azure-functions/routes.ts";
import { createCallerAuthTestApp } from "../../../support/app.ts";

/** The first path segment of a path or an Azure route template. */
const base = (path: string): string => path.replace(/^\//, "").split("/")[0] ?? "";

describe("AZURE_ROUTES", () => {
  it.each([
    { mode: "none", callerAuth: { mode: "none" } as const },
    { mode: "path", callerAuth: { mode: "path", secrets: ["s".repeat(48)] } as const },
  ])("registers every route the app declares with CALLER_AUTH=$mode, so none is left to the host's 404", ({ callerAuth }) => {
    const { app } = createCallerAuthTestApp(callerAuth);
    const served = new Set(app.routes.map((route) => base(route.path)));
    expect([...served].sort()).toEqual(Object.values(AZURE_ROUTES).map(base).sort());
  });

  it("lets the review routes carry a path secret segment", () => {
    for (const name of ["expand", "authorize"] as const) expect(AZURE_ROUTES[name]).toMatch(/^[a-z]+\/\{\*\w+\}$/);
  });
});
