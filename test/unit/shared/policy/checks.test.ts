import { describe, expect, it } from "vitest";
import { checkContentsShape, checkNames, checkReferenceCount, distinctNames, truncate } from "../../../../shared/policy/checks.ts";
import type { GmsaReference } from "../../../../shared/policy/references.ts";
import { PLACES } from "../../../support/pods.ts";

function ref(label: string, name: string | undefined, contents: string | undefined): GmsaReference {
  return { label, source: "field", name, contents };
}

describe("checkNames", () => {
  it.each(PLACES)("refuses an invalid credspec name on the $kind (422), naming the place and the name", ({ label }) => {
    const errors = checkNames([ref(label, "Web_App", undefined)]);
    expect(errors.map((e) => [e.code, e.status])).toEqual([["ERR_INVALID_CREDSPEC_NAME", 422]]);
    expect(errors[0]?.message).toContain(label);
    expect(errors[0]?.message).toContain('"Web_App"');
    expect(errors[0]?.where).toEqual({ place: label });
  });

  it("refuses an empty name and keeps long names short in the message", () => {
    const errors = checkNames([ref("pod", "", undefined), ref('container "app"', "X".repeat(1000), undefined)]);
    expect(errors).toHaveLength(2);
    expect(errors[1]!.message.length).toBeLessThan(200);
  });

  it("lets valid names and references without a name through", () => {
    expect(checkNames([ref("pod", "webapp1", undefined), ref("pod", undefined, "{}")])).toEqual([]);
  });
});

describe("checkContentsShape", () => {
  it.each(PLACES)("refuses contents without a name on the $kind (422)", ({ label }) => {
    const errors = checkContentsShape([ref(label, undefined, "{}")]);
    expect(errors.map((e) => [e.code, e.status])).toEqual([["ERR_CONTENTS_WITHOUT_NAME", 422]]);
    expect(errors[0]?.message).toContain(label);
  });

  it.each(PLACES)("refuses contents that are not JSON on the $kind (422), naming place and credspec", ({ label }) => {
    const errors = checkContentsShape([ref(label, "webapp1", "{oops")]);
    expect(errors.map((e) => [e.code, e.status])).toEqual([["ERR_CONTENTS_NOT_JSON", 422]]);
    expect(errors[0]?.message).toContain(label);
    expect(errors[0]?.message).toContain('"webapp1"');
    expect(errors[0]?.message).not.toContain("{oops");
  });

  it.each(PLACES)("refuses contents on the $kind that repeat a key at any depth (422), naming place and key path", ({ label }) => {
    const errors = checkContentsShape([ref(label, "webapp1", '{"DomainJoinConfig":{"Sid":"S-1","Sid":"S-2"}}')]);
    expect(errors.map((e) => [e.code, e.status])).toEqual([["ERR_DUPLICATE_CREDSPEC_KEY", 422]]);
    expect(errors[0]?.message).toContain(label);
    expect(errors[0]?.message).toContain('"DomainJoinConfig.Sid"');
    expect(errors[0]?.message).not.toContain("S-2");
    expect(errors[0]?.where).toEqual({ place: label, credSpecName: "webapp1" });
  });

  it("counts escaped and plain spellings of one key as a repeat", () => {
    expect(checkContentsShape([ref("pod", "webapp1", '{"a\\u0062":1,"ab":2}')]).map((e) => e.code)).toEqual(["ERR_DUPLICATE_CREDSPEC_KEY"]);
  });

  it.each(PLACES)("refuses a name without contents on the $kind (422)", ({ label }) => {
    const errors = checkContentsShape([ref(label, "webapp1", undefined)]);
    expect(errors.map((e) => [e.code, e.status])).toEqual([["ERR_NAME_WITHOUT_CONTENTS", 422]]);
    expect(errors[0]?.message).toContain(label);
    expect(errors[0]?.where).toEqual({ place: label, credSpecName: "webapp1" });
  });

  it("accepts a name with JSON contents", () => {
    expect(checkContentsShape([ref("pod", "webapp1", "{}")])).toEqual([]);
  });

  it("gives every text its own verdict each time it comes, past the remembered ones and over the length remembered", () => {
    const kinds = [
      { text: (i: number) => `{"n":${i}}`, codes: [] },
      { text: (i: number) => `{"n":${i},"n":0}`, codes: ["ERR_DUPLICATE_CREDSPEC_KEY"] },
      { text: (i: number) => `{"n":${i}`, codes: ["ERR_CONTENTS_NOT_JSON"] },
      { text: (i: number) => `{"n":${i},"pad":"${"x".repeat(20_000)}","n":1}`, codes: ["ERR_DUPLICATE_CREDSPEC_KEY"] },
    ];
    for (let pass = 0; pass < 2; pass++) {
      for (let i = 0; i < 100; i++) {
        const kind = kinds[i % kinds.length]!;
        expect(checkContentsShape([ref("pod", "webapp1", kind.text(i))]).map((e) => e.code)).toEqual(kind.codes);
      }
    }
  });
});

describe("checkReferenceCount", () => {
  it("accepts up to the limit and refuses more (422)", () => {
    expect(checkReferenceCount(new Set(["a", "b"]), 2)).toEqual([]);
    const errors = checkReferenceCount(new Set(["a", "b", "c"]), 2);
    expect(errors.map((e) => [e.code, e.status])).toEqual([["ERR_TOO_MANY_REFERENCES", 422]]);
    expect(errors[0]?.message).toContain("3");
  });
});

describe("distinctNames", () => {
  it("keeps valid names once each, in first-seen order", () => {
    const refs = [ref("a", "b-name", undefined), ref("b", "a-name", "{}"), ref("c", "b-name", undefined), ref("d", "BAD", undefined), ref("e", undefined, "{}")];
    expect([...distinctNames(refs)]).toEqual(["b-name", "a-name"]);
  });
});

describe("truncate", () => {
  it("keeps short text and cuts long text with an ellipsis", () => {
    expect(truncate("short")).toBe("short");
    expect(truncate("x".repeat(100), 10)).toBe(`${"x".repeat(10)}…`);
  });
});
