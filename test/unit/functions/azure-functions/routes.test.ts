import { describe, expect, it } from "vitest";
import { AZURE_ROUTES } from "../../../../functions/azure-functions/routes.ts";
import { createTestApp } from "../../support/app.ts";

describe("AZURE_ROUTES", () => {
  it("registers every path the app serves, so none is left to the host's 404", () => {
    const { app } = createTestApp({ functions: ["expand", "authorize"] });
    const served = new Set(app.routes.map((route) => route.path).filter((path) => !path.includes("*")));
    expect([...served].sort()).toEqual(Object.values(AZURE_ROUTES).map((route) => `/${route}`).sort());
  });
});
