/** What a tagged release refuses (infra/build/release/version.ts): a tag that is not v<version>, and local changes. */
import { describe, expect, it } from "vitest";
import { checkTag } from "../../../../infra/build/release/version.ts";

describe("checkTag", () => {
  it("accepts v<version> on a clean working tree", () => {
    expect(checkTag("v1.2.3", "1.2.3", "")).toEqual([]);
    expect(checkTag("v1.2.3-rc.1", "1.2.3-rc.1", "\n")).toEqual([]);
  });

  it.each([
    ["a tag that names another version, saying both", "v1.2.4", "", ["v1.2.4", "1.2.3"]],
    ["a tag without the v", "1.2.3", "", ["1.2.3"]],
    [
      "a working tree with changes, naming the files",
      "v1.2.3",
      " M package.json\n?? notes.txt\n",
      ["package.json, notes.txt"],
    ],
  ])("refuses %s", (_, tag, status, named) => {
    const problems = checkTag(tag, "1.2.3", status);
    expect(problems).toHaveLength(1);
    for (const text of named) expect(problems[0]).toContain(text);
  });

  it("names both problems at once", () => {
    expect(checkTag("v9.9.9", "1.2.3", " M README.md\n")).toHaveLength(2);
  });
});
