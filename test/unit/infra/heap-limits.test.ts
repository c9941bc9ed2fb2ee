import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { NODE_SERVER_OPTIONS } from "../../../infra/build/node/heap-limits.ts";
import { REPO_ROOT } from "../../../infra/build/repo-root.ts";

describe("the Node server's heap limits", () => {
  it("are on npm start's command line", async () => {
    const manifest = JSON.parse(await readFile(`${REPO_ROOT}/package.json`, "utf8")) as {
      scripts: Record<string, string>;
    };
    expect(manifest.scripts["start"]).toMatch(new RegExp(`^node ${NODE_SERVER_OPTIONS} `));
  });
});
