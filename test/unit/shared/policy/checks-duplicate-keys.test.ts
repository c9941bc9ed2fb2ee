import { describe, expect, it } from "vitest";
import { findDuplicateKey } from "../../../../shared/policy/checks.ts";

describe("findDuplicateKey", () => {
  it.each([
    ['{"a":1,"a":2}', "a"],
    ['{"a":1,"b":{"c":true,"c":false}}', "b.c"],
    ['[{"x":{"y":[1,{"z":1, "z" :2}]}}]', "[0].x.y[1].z"],
    ['{"list":[{"k":1},{"k":1,"k":1}]}', "list[1].k"],
    ['{"a\\u0062":1,"ab":2}', "ab"],
    ['{"\\u0041":1,"A":2}', "A"],
    ['{"\\/":1,"/":2}', "/"],
    ['{"\\ud800":1,"\\uD800":2}', "\ud800"],
    [' \n\t{ "a" :\r1 ,\n "a" : 2 } ', "a"],
    [
      '{"ActiveDirectoryConfig":{"GroupManagedServiceAccounts":[]},"CmsPlugins":[],"ActiveDirectoryConfig":{}}',
      "ActiveDirectoryConfig",
    ],
  ])("finds the repeated key in %s", (text, path) => {
    expect(findDuplicateKey(text)).toEqual({ kind: "duplicate", path });
  });

  it.each([
    "{}",
    " [ ] ",
    '{"a":{"a":{"a":1}}}',
    '[{"k":1},{"k":2}]',
    '{"ab":1,"a\\u0063":2}',
    '{"A":1,"a":2}',
    '"{\\"a\\":1,\\"a\\":2}"',
    '{"a":"\\"a\\":1","b":null,"c":-0.5e+10,"d":[true,false]}',
    "1",
  ])("finds no repeated key in %s", (text) => {
    expect(findDuplicateKey(text)).toEqual({ kind: "unique" });
    expect(() => JSON.parse(text) as unknown).not.toThrow();
  });

  it.each([
    '{"a":1',
    '{"a":1,}',
    "[1,]",
    '{"a" 1}',
    "-01",
    "1.",
    '"\\x"',
    '"\\u12g4"',
    '"a\u0001"',
    "{}x",
    "",
    "nul",
    "{a:1}",
  ])("calls %j invalid, as JSON.parse does", (text) => {
    expect(findDuplicateKey(text)).toEqual({ kind: "invalid" });
    expect(() => JSON.parse(text) as unknown).toThrow();
  });

  it("scans deep nesting without exhausting the call stack", () => {
    const depth = 200_000;
    expect(findDuplicateKey("[".repeat(depth) + "]".repeat(depth))).toEqual({ kind: "unique" });
    const nested = '{"k":'.repeat(depth) + '{"a":1,"a":2}' + "}".repeat(depth);
    const found = findDuplicateKey(nested);
    expect(found.kind).toBe("duplicate");
    expect(found.kind === "duplicate" && found.path.endsWith("k.k.a")).toBe(true);
  });

  it("agrees with JSON.parse on what is JSON, for texts JSON.parse keeps whole", () => {
    for (const value of [{ a: [1, { b: 'x\u2028"\\' }], c: { d: null } }, ["\u0000", 1e21, -0], "plain"]) {
      expect(findDuplicateKey(JSON.stringify(value, null, 2))).toEqual({ kind: "unique" });
    }
  });
});
