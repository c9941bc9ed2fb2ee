/** What a tagged release refuses (infra/build/release/version.ts): a tag that is not v<version>, and local changes. */
import { describe, expect, it } from "vitest";
import { checkTag, readPackageVersion } from "../../../../infra/build/release/version.ts";

describe("checkTag", () => {
  it("accepts v<version> on a clean working tree", () => {
    expect(checkTag("v1.2.3", "1.2.3", "")).toEqual([]);
    expect(checkTag("v1.2.3-rc.1", "1.2.3-rc.1", "\n")).toEqual([]);
  });

  it("refuses a tag that names another version, saying both", () => {
    const [problem, ...rest] = checkTag("v1.2.4", "1.2.3", "");
    expect(rest).toEqual([]);
    expect(problem).toContain("v1.2.4");
    expect(problem).toContain("1.2.3");
  });

  it("refuses a tag without the v", () => {
    expect(checkTag("1.2.3", "1.2.3", "")).toHaveLength(1);
  });

  it("refuses a working tree with changes, naming the files", () => {
    const problems = checkTag("v1.2.3", "1.2.3", " M package.json\n?? notes.txt\n");
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain("package.json, notes.txt");
  });

  it("names both problems at once", () => {
    expect(checkTag("v9.9.9", "1.2.3", " M README.md\n")).toHaveLength(2);
  });
});

describe("readPackageVersion", () => {
  it("reads package.json's semantic version", async () => {
    expect(await readPackageVersion()).toMatch(/^\d+\.\d+\.\d+/);
  });
});
