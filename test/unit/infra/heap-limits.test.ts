import { describe, expect, it } from "vitest";
import pkg from "../../../package.json" with { type: "json" };
import { NODE_SERVER_OPTIONS } from "../../../infra/build/node/heap-limits.ts";

describe("the Node server's heap limits", () => {
  it("are on npm start's command line", () => {
    expect(pkg.scripts.start).toMatch(new RegExp(`^node ${NODE_SERVER_OPTIONS} `));
  });
});
