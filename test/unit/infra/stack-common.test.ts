import { afterEach, describe, expect, it, vi } from "vitest";
import { inheritedEnv } from "../../../infra/local/stack-common.ts";
import { VARIABLES } from "../../../shared/config/index.ts";

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("the dev stack's inherited environment", () => {
  it("drops every variable of the configuration table, so a developer's shell cannot change what the stack runs", () => {
    for (const name of Object.keys(VARIABLES)) vi.stubEnv(name, "from-the-shell");
    vi.stubEnv("GMSA_UNRELATED", "kept");
    const env = inheritedEnv();
    expect(Object.keys(env).filter((name) => name in VARIABLES)).toEqual([]);
    expect(env["GMSA_UNRELATED"]).toBe("kept");
  });
});
