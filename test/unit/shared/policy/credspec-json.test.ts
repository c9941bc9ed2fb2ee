import { describe, expect, it } from "vitest";
import { credspecJson } from "../../../../shared/policy/credspec-json.ts";

describe("credspecJson", () => {
  it("is JSON.stringify of the credspec with its UTF-8 length", () => {
    const credspec = { DomainJoinConfig: { DnsName: "contoso.com", MachineAccountName: "WebApp1" }, note: "Grüße, 域" };
    const json = credspecJson(credspec);
    expect(json.text).toBe(JSON.stringify(credspec));
    expect(json.bytes).toBe(Buffer.byteLength(JSON.stringify(credspec), "utf8"));
    expect(json.bytes).toBeGreaterThan(json.text.length);
  });

  it("serializes one credspec object once and two equal objects apart", () => {
    const first = { a: 1 };
    expect(credspecJson(first)).toBe(credspecJson(first));
    expect(credspecJson({ a: 1 })).not.toBe(credspecJson(first));
    expect(credspecJson({ a: 1 })).toEqual(credspecJson(first));
  });

  it("serializes values that are not objects each time", () => {
    expect(credspecJson("text")).toEqual({ text: '"text"', bytes: 6 });
    expect(credspecJson(null)).toEqual({ text: "null", bytes: 4 });
  });
});
