import { describe, expect, it } from "vitest";
import { parseCredSpecJson, validateCredSpecDocument } from "../../../../cli/credspec/validate.ts";
import { MAX_CREDSPEC_CONTENTS_BYTES } from "../../../../shared/policy/expand.ts";
import {
  editJson,
  loadCredSpecFixture,
  PLUGIN_INPUT_MARKER,
  readCredSpecFixtureBytes,
  REMOVE,
} from "../../../support/credspec-fixtures.ts";

const DOMAIN_JOINED = "webapp1.json";
const NON_DOMAIN_JOINED = "webapp1-non-domain-joined.json";
const ACCOUNTS = "ActiveDirectoryConfig.GroupManagedServiceAccounts";
const HOST = "ActiveDirectoryConfig.HostAccountConfig";
const DOMAIN_FIELDS = ["Sid", "MachineAccountName", "Guid", "DnsTreeName", "DnsName", "NetBiosName"];
const HOST_FIELDS = ["PortableCcgVersion", "PluginGUID", "PluginInput"];

interface Case {
  name: string;
  edits: [path: string, value: unknown][];
  /** Expected problems: exact path and a fragment of the message. */
  problems: [path: string, message: RegExp][];
}

/** One edit at `path`, reported at that same path. */
const at = (name: string, path: string, value: unknown, message: RegExp): Case => ({
  name,
  edits: [[path, value]],
  problems: [[path, message]],
});

const cases: Case[] = [
  at("CmsPlugins missing", "CmsPlugins", REMOVE, /is required/),
  at("CmsPlugins not an array", "CmsPlugins", "ActiveDirectory", /array/),
  at("CmsPlugins without ActiveDirectory", "CmsPlugins", ["Other"], /"ActiveDirectory"/),
  at("CmsPlugins entry not a string", "CmsPlugins[1]", 7, /string, got a number/),
  at("DomainJoinConfig missing", "DomainJoinConfig", REMOVE, /is required/),
  at("DomainJoinConfig not an object", "DomainJoinConfig", [], /object, got an array/),
  ...DOMAIN_FIELDS.flatMap((field) => [
    at(`${field} missing`, `DomainJoinConfig.${field}`, REMOVE, /is required/),
    at(`${field} not a string`, `DomainJoinConfig.${field}`, 1, /string, got a number/),
    at(`${field} empty`, `DomainJoinConfig.${field}`, " ", /empty/),
  ]),
  at("Sid of a builtin group", "DomainJoinConfig.Sid", "S-1-5-32-544", /S-1-5-21-/),
  at("Sid with two sub-authorities", "DomainJoinConfig.Sid", "S-1-5-21-1-2", /S-1-5-21-/),
  at("Sid over 32 bits", "DomainJoinConfig.Sid", "S-1-5-21-4294967296-1-2", /S-1-5-21-/),
  at("Guid not a GUID", "DomainJoinConfig.Guid", "6a3c1f0e-2b4d", /GUID/),
  at("Guid with one brace", "DomainJoinConfig.Guid", "{6a3c1f0e-2b4d-4e8f-9a1b-0c2d3e4f5a6b", /GUID/),
  at("ActiveDirectoryConfig missing", "ActiveDirectoryConfig", REMOVE, /is required/),
  at("ActiveDirectoryConfig null", "ActiveDirectoryConfig", null, /object, got null/),
  at("accounts missing", ACCOUNTS, REMOVE, /is required/),
  at("accounts not an array", ACCOUNTS, { Name: "WebApp1" }, /array, got an object/),
  at("accounts empty", ACCOUNTS, [], /at least one/),
  at("account not an object", `${ACCOUNTS}[1]`, "WebApp1", /object, got a string/),
  at("account Name missing", `${ACCOUNTS}[0].Name`, REMOVE, /is required/),
  at("account Scope not a string", `${ACCOUNTS}[1].Scope`, false, /string, got a boolean/),
  {
    name: "no Scope equal to DnsName or NetBiosName",
    edits: [
      [`${ACCOUNTS}[0].Scope`, "fabrikam.com"],
      [`${ACCOUNTS}[1].Scope`, "FABRIKAM"],
    ],
    problems: [[ACCOUNTS, /DomainJoinConfig\.DnsName or DomainJoinConfig\.NetBiosName/]],
  },
  at("HostAccountConfig not an object", HOST, "x", /object, got a string/),
  ...HOST_FIELDS.map((field) =>
    at(`HostAccountConfig partial: ${field} missing`, `${HOST}.${field}`, REMOVE, /is required/),
  ),
  {
    name: "HostAccountConfig with only PluginInput",
    edits: [
      [`${HOST}.PortableCcgVersion`, REMOVE],
      [`${HOST}.PluginGUID`, REMOVE],
    ],
    problems: [
      [`${HOST}.PortableCcgVersion`, /is required/],
      [`${HOST}.PluginGUID`, /is required/],
    ],
  },
  at("PortableCcgVersion a number", `${HOST}.PortableCcgVersion`, 1, /string, got a number/),
  at("PortableCcgVersion not a version", `${HOST}.PortableCcgVersion`, "one", /"1"/),
  at("PluginGUID not a GUID", `${HOST}.PluginGUID`, "{GDMA0342-266A-4D1P-831J-20990E82944F}", /GUID/),
  at(
    "PluginInput an object (the CRD types it as a string)",
    `${HOST}.PluginInput`,
    { credentialArn: `arn:aws:secretsmanager:us-west-2:111122223333:secret:${PLUGIN_INPUT_MARKER}` },
    /string, got an object/,
  ),
  at("PluginInput empty", `${HOST}.PluginInput`, "", /empty/),
  {
    name: "field name in the wrong case",
    edits: [
      ["CmsPlugins", REMOVE],
      ["cmsPlugins", ["ActiveDirectory"]],
    ],
    problems: [["CmsPlugins", /found "cmsPlugins"/]],
  },
];

/** `fixture` with `edits` made, in order. */
const edited = (edits: [path: string, value: unknown][], fixture = NON_DOMAIN_JOINED): unknown =>
  edits.reduce<unknown>((acc, [path, value]) => editJson(acc, path, value), loadCredSpecFixture(fixture));

describe("validateCredSpecDocument", () => {
  it.each([DOMAIN_JOINED, NON_DOMAIN_JOINED])("accepts the fixture %s with no problems or warnings", (fixture) => {
    const result = validateCredSpecDocument(loadCredSpecFixture(fixture));
    expect(result).toMatchObject({ ok: true, problems: [], warnings: [] });
    expect(result.ok && result.document).toEqual(loadCredSpecFixture(fixture));
  });

  it.each(cases)("reports $name by JSON path", ({ edits, problems }) => {
    const result = validateCredSpecDocument(edited(edits));
    expect(result.ok).toBe(false);
    expect(result.problems.map((p) => p.path)).toEqual(problems.map(([path]) => path));
    result.problems.forEach((problem, i) => expect(problem.message).toMatch(problems[i]![1]));
    // PluginInput may hold a secret store reference or credentials: never in a problem or a warning.
    expect(JSON.stringify(result)).not.toContain(PLUGIN_INPUT_MARKER);
    expect(JSON.stringify(result)).not.toContain("secretsmanager");
  });

  it.each([
    ["an array", []],
    ["null", null],
    ["a string", `{"PluginInput":"${PLUGIN_INPUT_MARKER}"}`],
  ])("reports a document that is %s at the root path", (_, json) => {
    const result = validateCredSpecDocument(json);
    expect(result.problems).toEqual([{ path: "", message: expect.stringMatching(/JSON object/) as string }]);
    expect(JSON.stringify(result)).not.toContain(PLUGIN_INPUT_MARKER);
  });

  it("reports every problem together, in document order", () => {
    const edits: [string, unknown][] = [
      ["CmsPlugins", REMOVE],
      ["DomainJoinConfig.Sid", "S-1-5-18"],
      ["DomainJoinConfig.Guid", REMOVE],
      [`${ACCOUNTS}[0].Scope`, REMOVE],
      [`${HOST}.PluginGUID`, REMOVE],
    ];
    expect(validateCredSpecDocument(edited(edits)).problems.map((p) => p.path)).toEqual(edits.map(([path]) => path));
  });

  it("accepts a GUID in braces and Scope in another letter case", () => {
    const doc = edited(
      [
        ["DomainJoinConfig.Guid", "{6A3C1F0E-2B4D-4E8F-9A1B-0C2D3E4F5A6B}"],
        [`${ACCOUNTS}[0].Scope`, "CONTOSO.COM"],
        [`${ACCOUNTS}[1]`, REMOVE],
      ],
      DOMAIN_JOINED,
    );
    expect(validateCredSpecDocument(doc)).toMatchObject({ ok: true, problems: [] });
  });

  it("warns about unknown fields, which the CRD schema prunes, without failing", () => {
    const result = validateCredSpecDocument(
      edited([
        ["Extra", 1],
        [`${HOST}.pluginInput`, PLUGIN_INPUT_MARKER],
      ]),
    );
    expect(result.ok).toBe(true);
    expect(result.warnings.map((w) => w.path)).toEqual(["Extra", `${HOST}.pluginInput`]);
    expect(result.warnings[0]!.message).toMatch(/unknown fields/);
    expect(JSON.stringify(result.warnings)).not.toContain(PLUGIN_INPUT_MARKER);
  });

  it(`rejects a credential spec over ${MAX_CREDSPEC_CONTENTS_BYTES} bytes of compact JSON, the pod field's limit`, () => {
    const accounts = Array.from({ length: 2000 }, (_, i) => ({ Name: `WebApp${i}`, Scope: "contoso.com" }));
    const result = validateCredSpecDocument(editJson(loadCredSpecFixture(DOMAIN_JOINED), ACCOUNTS, accounts));
    expect(result.problems).toEqual([
      { path: "", message: expect.stringContaining(String(MAX_CREDSPEC_CONTENTS_BYTES)) as string },
    ]);
  });
});

const text = new TextDecoder().decode(readCredSpecFixtureBytes(NON_DOMAIN_JOINED));

/** `value` as UTF-16, little- or big-endian after a byte order mark, or little-endian without one. */
function utf16(value: string, byteOrderMark: "le" | "be" | "none"): Uint8Array {
  const bytes = Buffer.from((byteOrderMark === "none" ? "" : "\ufeff") + value, "utf16le");
  return byteOrderMark === "be" ? bytes.swap16() : bytes;
}

describe("parseCredSpecJson", () => {
  it.each([
    ["UTF-8", new TextEncoder().encode(text)],
    ["UTF-8 with a byte order mark", new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(text)])],
    // As Windows PowerShell 5.1 writes with Out-File.
    ["UTF-16 LE with a byte order mark", utf16(text, "le")],
    ["UTF-16 BE with a byte order mark", utf16(text, "be")],
  ])("parses %s", (_, bytes) => {
    expect(parseCredSpecJson(bytes)).toEqual({ ok: true, value: loadCredSpecFixture(NON_DOMAIN_JOINED) });
  });

  it.each([
    ["UTF-16 without a byte order mark, with a hint to save as UTF-8", utf16(text, "none"), /UTF-16.*UTF-8/],
    ["bytes that are not UTF-8", new Uint8Array([0x7b, 0xc3, 0x28, 0x7d]), /not UTF-8/],
    ["empty input", new Uint8Array(), /empty/],
    ["blank input", new TextEncoder().encode("  \n"), /empty/],
  ])("reports %s", (_, bytes, message) => {
    expect(parseCredSpecJson(bytes)).toEqual({
      ok: false,
      problems: [{ path: "", message: expect.stringMatching(message) as string }],
    });
  });

  it("reports malformed JSON with its line and column but never the text around it, nor a bare secret (V8 quotes it)", () => {
    const broken = text.replace(`${PLUGIN_INPUT_MARKER}\\"}"`, `${PLUGIN_INPUT_MARKER}\\"}" oops`);
    const result = parseCredSpecJson(new TextEncoder().encode(broken));
    expect(result.ok).toBe(false);
    const message = result.ok ? "" : result.problems.map((p) => p.message).join("\n");
    expect(message).toMatch(/not valid JSON \(line 19 column \d+\)/);
    expect(message).not.toContain(PLUGIN_INPUT_MARKER);
    expect(message).not.toContain("oops");
    const bare = JSON.stringify(parseCredSpecJson(new TextEncoder().encode(PLUGIN_INPUT_MARKER)));
    expect(bare).not.toContain(PLUGIN_INPUT_MARKER);
    expect(bare).toMatch(/not valid JSON/);
  });
});
