import { describe, expect, it } from "vitest";
import { AZURE_ROUTES } from "../../../../functions/azure-functions/routes.ts";
import { matchRoute, surfacePaths } from "../../../../functions/surface.ts";
import { FUNCTION_NAMES } from "../../../../shared/config/index.ts";

/** The first path segment of a path or an Azure route template. */
const base = (path: string): string => path.replace(/^\//, "").split("/")[0] ?? "";

describe("AZURE_ROUTES", () => {
  it.each([
    { mode: "none", callerAuth: { mode: "none" } as const },
    { mode: "path", callerAuth: { mode: "path", secrets: ["s".repeat(48)] } as const },
  ])("registers every path the app serves with CALLER_AUTH=$mode, so none is left to the host's 404", ({ callerAuth }) => {
    const pathMode = callerAuth.mode === "path";
    const paths = surfacePaths(FUNCTION_NAMES);
    for (const path of paths) expect(matchRoute(path, FUNCTION_NAMES, pathMode)).toBeDefined();
    const served = new Set(paths.map(base));
    expect([...served].sort()).toEqual(Object.values(AZURE_ROUTES).map(base).sort());
  });

  it("lets the protected routes carry a path secret segment", () => {
    for (const name of [...FUNCTION_NAMES, "metrics"] as const) expect(AZURE_ROUTES[name]).toMatch(/^[a-z]+\/\{\*\w+\}$/);
  });
});
