import { describe, expect, it } from "vitest";
import { parseCredSpecJson } from "../../../../shared/credspec/parse.ts";
import { loadCredSpecFixture, PLUGIN_INPUT_MARKER, readCredSpecFixtureBytes } from "../../../support/credspec-fixtures.ts";

const FIXTURE = "webapp1-non-domain-joined.json";
const text = new TextDecoder().decode(readCredSpecFixtureBytes(FIXTURE));

function utf16(value: string, byteOrderMark: "le" | "be" | "none"): Uint8Array {
  const bytes: number[] = byteOrderMark === "le" ? [0xff, 0xfe] : byteOrderMark === "be" ? [0xfe, 0xff] : [];
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (byteOrderMark === "be") bytes.push(unit >> 8, unit & 0xff);
    else bytes.push(unit & 0xff, unit >> 8);
  }
  return new Uint8Array(bytes);
}

describe("parseCredSpecJson", () => {
  it("parses UTF-8 with and without a byte order mark", () => {
    const plain = new TextEncoder().encode(text);
    const withBom = new Uint8Array([0xef, 0xbb, 0xbf, ...plain]);
    expect(parseCredSpecJson(plain)).toEqual({ ok: true, value: loadCredSpecFixture(FIXTURE) });
    expect(parseCredSpecJson(withBom)).toEqual({ ok: true, value: loadCredSpecFixture(FIXTURE) });
  });

  it("parses UTF-16 with a byte order mark, as Windows PowerShell 5.1 writes with Out-File", () => {
    expect(parseCredSpecJson(utf16(text, "le"))).toEqual({ ok: true, value: loadCredSpecFixture(FIXTURE) });
    expect(parseCredSpecJson(utf16(text, "be"))).toEqual({ ok: true, value: loadCredSpecFixture(FIXTURE) });
  });

  it("reports UTF-16 without a byte order mark with a hint to save as UTF-8", () => {
    const result = parseCredSpecJson(utf16(text, "none"));
    expect(result).toEqual({ ok: false, problems: [{ path: "", message: expect.stringMatching(/UTF-16.*UTF-8/) as string }] });
  });

  it("reports bytes that are not UTF-8", () => {
    const result = parseCredSpecJson(new Uint8Array([0x7b, 0xc3, 0x28, 0x7d]));
    expect(result).toEqual({ ok: false, problems: [{ path: "", message: expect.stringMatching(/not UTF-8/) as string }] });
  });

  it.each(["", "  \n"])("reports empty input %j", (input) => {
    const result = parseCredSpecJson(new TextEncoder().encode(input));
    expect(result).toEqual({ ok: false, problems: [{ path: "", message: expect.stringMatching(/empty/) as string }] });
  });

  it("reports malformed JSON with its line and column but never the text around it", () => {
    const broken = text.replace(`${PLUGIN_INPUT_MARKER}\\"}"`, `${PLUGIN_INPUT_MARKER}\\"}" oops`);
    const result = parseCredSpecJson(new TextEncoder().encode(broken));
    expect(result.ok).toBe(false);
    const message = result.ok ? "" : result.problems.map((p) => p.message).join("\n");
    expect(message).toMatch(/not valid JSON \(line 19 column \d+\)/);
    expect(message).not.toContain(PLUGIN_INPUT_MARKER);
    expect(message).not.toContain("oops");
  });

  it("never quotes a bare secret that is not JSON (V8 would quote it)", () => {
    const result = parseCredSpecJson(new TextEncoder().encode(PLUGIN_INPUT_MARKER));
    expect(JSON.stringify(result)).not.toContain(PLUGIN_INPUT_MARKER);
    expect(JSON.stringify(result)).toMatch(/not valid JSON/);
  });
});
