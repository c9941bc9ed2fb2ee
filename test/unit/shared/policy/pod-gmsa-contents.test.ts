import { describe, expect, it } from "vitest";
import { listDifferingKeys, sameJson } from "../../../../shared/policy/pod-gmsa.ts";
import { WEBAPP1_CREDSPEC } from "../../../support/pods.ts";

describe("listDifferingKeys", () => {
  it.each([
    { what: "byte-equal text", inlined: JSON.stringify(WEBAPP1_CREDSPEC), credspec: WEBAPP1_CREDSPEC },
    { what: "1.0 and 1", inlined: '{"n":1.0}', credspec: { n: 1 } },
    { what: "nulls", inlined: '{"n":null}', credspec: { n: null } },
  ])("treats $what as equal", ({ inlined, credspec }) => {
    expect(listDifferingKeys(inlined, credspec)).toEqual([]);
  });

  it.each([
    { what: 'true and "true"', inlined: '{"b":true}', credspec: { b: "true" }, keys: ["b"] },
    { what: "null and a missing key", inlined: '{"n":null}', credspec: {}, keys: ["n"] },
    { what: "arrays of another length", inlined: '{"a":[1]}', credspec: { a: [1, 2] }, keys: ["a"] },
    { what: "an object and an array", inlined: '{"a":{}}', credspec: { a: [] }, keys: ["a"] },
    { what: "a nested value", inlined: '{"x":{"y":{"z":1}}}', credspec: { x: { y: { z: 2 } } }, keys: ["x.y.z"] },
    { what: "an extra key", inlined: '{"a":1,"extra":1}', credspec: { a: 1 }, keys: ["extra"] },
    { what: "top-level values", inlined: "1", credspec: 2, keys: ["(root)"] },
    {
      what: "case of a value",
      inlined: '{"DnsName":"CONTOSO.COM"}',
      credspec: { DnsName: "contoso.com" },
      keys: ["DnsName"],
    },
  ])("reports $what as different, naming the keys", ({ inlined, credspec, keys }) => {
    expect(listDifferingKeys(inlined, credspec)).toEqual(keys);
  });

  it("reports at most eight differing keys", () => {
    const credspec = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, i]));
    const result = listDifferingKeys("{}", credspec);
    expect(result).toHaveLength(8);
  });

  it("reports text that is not JSON as undefined", () => {
    expect(listDifferingKeys("{not json", WEBAPP1_CREDSPEC)).toBeUndefined();
  });
});

describe("sameJson", () => {
  it("is true for equal JSON in any key order and false otherwise", () => {
    expect(sameJson('{"a":1,"b":2}', '{"b":2,"a":1}')).toBe(true);
    expect(sameJson('{"a":1}', '{"a":"1"}')).toBe(false);
    expect(sameJson("{", '{"a":1}')).toBe(false);
    expect(sameJson('{"a":1}', "{")).toBe(false);
    expect(sameJson("{", "{")).toBe(true);
  });
});
