import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { NODE_SERVER_OPTIONS } from "../../../infra/node/heap-limits.ts";
import { REPO_ROOT } from "../../../infra/repo-root.ts";

describe("the Node server's heap limits", () => {
  it("are on the Dockerfile's CMD", async () => {
    const dockerfile = await readFile(`${REPO_ROOT}/infra/node/Dockerfile`, "utf8");
    const cmd = /^CMD (.*)$/m.exec(dockerfile)?.[1];
    expect(JSON.parse(cmd ?? "[]")).toEqual(expect.arrayContaining(NODE_SERVER_OPTIONS.split(" ")));
  });

  it("are on npm start's command line", async () => {
    const manifest = JSON.parse(await readFile(`${REPO_ROOT}/package.json`, "utf8")) as { scripts: Record<string, string> };
    expect(manifest.scripts["start"]).toMatch(new RegExp(`^node ${NODE_SERVER_OPTIONS} `));
  });
});
