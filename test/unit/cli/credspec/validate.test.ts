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

const cases: Case[] = [
  { name: "CmsPlugins missing", edits: [["CmsPlugins", REMOVE]], problems: [["CmsPlugins", /is required/]] },
  { name: "CmsPlugins not an array", edits: [["CmsPlugins", "ActiveDirectory"]], problems: [["CmsPlugins", /array/]] },
  {
    name: "CmsPlugins without ActiveDirectory",
    edits: [["CmsPlugins", ["Other"]]],
    problems: [["CmsPlugins", /"ActiveDirectory"/]],
  },
  {
    name: "CmsPlugins entry not a string",
    edits: [["CmsPlugins[1]", 7]],
    problems: [["CmsPlugins[1]", /string, got a number/]],
  },
  {
    name: "DomainJoinConfig missing",
    edits: [["DomainJoinConfig", REMOVE]],
    problems: [["DomainJoinConfig", /is required/]],
  },
  {
    name: "DomainJoinConfig not an object",
    edits: [["DomainJoinConfig", []]],
    problems: [["DomainJoinConfig", /object, got an array/]],
  },
  ...DOMAIN_FIELDS.flatMap((field): Case[] => [
    {
      name: `${field} missing`,
      edits: [[`DomainJoinConfig.${field}`, REMOVE]],
      problems: [[`DomainJoinConfig.${field}`, /is required/]],
    },
    {
      name: `${field} not a string`,
      edits: [[`DomainJoinConfig.${field}`, 1]],
      problems: [[`DomainJoinConfig.${field}`, /string, got a number/]],
    },
    {
      name: `${field} empty`,
      edits: [[`DomainJoinConfig.${field}`, " "]],
      problems: [[`DomainJoinConfig.${field}`, /empty/]],
    },
  ]),
  {
    name: "Sid of a builtin group",
    edits: [["DomainJoinConfig.Sid", "S-1-5-32-544"]],
    problems: [["DomainJoinConfig.Sid", /S-1-5-21-/]],
  },
  {
    name: "Sid with two sub-authorities",
    edits: [["DomainJoinConfig.Sid", "S-1-5-21-1-2"]],
    problems: [["DomainJoinConfig.Sid", /S-1-5-21-/]],
  },
  {
    name: "Sid over 32 bits",
    edits: [["DomainJoinConfig.Sid", "S-1-5-21-4294967296-1-2"]],
    problems: [["DomainJoinConfig.Sid", /S-1-5-21-/]],
  },
  {
    name: "Guid not a GUID",
    edits: [["DomainJoinConfig.Guid", "6a3c1f0e-2b4d"]],
    problems: [["DomainJoinConfig.Guid", /GUID/]],
  },
  {
    name: "Guid with one brace",
    edits: [["DomainJoinConfig.Guid", "{6a3c1f0e-2b4d-4e8f-9a1b-0c2d3e4f5a6b"]],
    problems: [["DomainJoinConfig.Guid", /GUID/]],
  },
  {
    name: "ActiveDirectoryConfig missing",
    edits: [["ActiveDirectoryConfig", REMOVE]],
    problems: [["ActiveDirectoryConfig", /is required/]],
  },
  {
    name: "ActiveDirectoryConfig null",
    edits: [["ActiveDirectoryConfig", null]],
    problems: [["ActiveDirectoryConfig", /object, got null/]],
  },
  { name: "accounts missing", edits: [[ACCOUNTS, REMOVE]], problems: [[ACCOUNTS, /is required/]] },
  {
    name: "accounts not an array",
    edits: [[ACCOUNTS, { Name: "WebApp1" }]],
    problems: [[ACCOUNTS, /array, got an object/]],
  },
  { name: "accounts empty", edits: [[ACCOUNTS, []]], problems: [[ACCOUNTS, /at least one/]] },
  {
    name: "account not an object",
    edits: [[`${ACCOUNTS}[1]`, "WebApp1"]],
    problems: [[`${ACCOUNTS}[1]`, /object, got a string/]],
  },
  {
    name: "account Name missing",
    edits: [[`${ACCOUNTS}[0].Name`, REMOVE]],
    problems: [[`${ACCOUNTS}[0].Name`, /is required/]],
  },
  {
    name: "account Scope not a string",
    edits: [[`${ACCOUNTS}[1].Scope`, false]],
    problems: [[`${ACCOUNTS}[1].Scope`, /string, got a boolean/]],
  },
  {
    name: "no Scope equal to DnsName or NetBiosName",
    edits: [
      [`${ACCOUNTS}[0].Scope`, "fabrikam.com"],
      [`${ACCOUNTS}[1].Scope`, "FABRIKAM"],
    ],
    problems: [[ACCOUNTS, /DomainJoinConfig\.DnsName or DomainJoinConfig\.NetBiosName/]],
  },
  { name: "HostAccountConfig not an object", edits: [[HOST, "x"]], problems: [[HOST, /object, got a string/]] },
  ...HOST_FIELDS.map((field): Case => ({
    name: `HostAccountConfig partial: ${field} missing`,
    edits: [[`${HOST}.${field}`, REMOVE]],
    problems: [[`${HOST}.${field}`, /is required/]],
  })),
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
  {
    name: "PortableCcgVersion a number",
    edits: [[`${HOST}.PortableCcgVersion`, 1]],
    problems: [[`${HOST}.PortableCcgVersion`, /string, got a number/]],
  },
  {
    name: "PortableCcgVersion not a version",
    edits: [[`${HOST}.PortableCcgVersion`, "one"]],
    problems: [[`${HOST}.PortableCcgVersion`, /"1"/]],
  },
  {
    name: "PluginGUID not a GUID",
    edits: [[`${HOST}.PluginGUID`, "{GDMA0342-266A-4D1P-831J-20990E82944F}"]],
    problems: [[`${HOST}.PluginGUID`, /GUID/]],
  },
  {
    name: "PluginInput an object (the CRD types it as a string)",
    edits: [
      [
        `${HOST}.PluginInput`,
        { credentialArn: `arn:aws:secretsmanager:us-west-2:111122223333:secret:${PLUGIN_INPUT_MARKER}` },
      ],
    ],
    problems: [[`${HOST}.PluginInput`, /string, got an object/]],
  },
  { name: "PluginInput empty", edits: [[`${HOST}.PluginInput`, ""]], problems: [[`${HOST}.PluginInput`, /empty/]] },
  {
    name: "field name in the wrong case",
    edits: [
      ["CmsPlugins", REMOVE],
      ["cmsPlugins", ["ActiveDirectory"]],
    ],
    problems: [["CmsPlugins", /found "cmsPlugins"/]],
  },
];

describe("validateCredSpecDocument", () => {
  it.each([DOMAIN_JOINED, NON_DOMAIN_JOINED])("accepts the fixture %s with no problems or warnings", (fixture) => {
    const result = validateCredSpecDocument(loadCredSpecFixture(fixture));
    expect(result).toMatchObject({ ok: true, problems: [], warnings: [] });
    expect(result.ok && result.document).toEqual(loadCredSpecFixture(fixture));
  });

  it.each(cases)("reports $name by JSON path", ({ edits, problems }) => {
    const doc = edits.reduce<unknown>(
      (acc, [path, value]) => editJson(acc, path, value),
      loadCredSpecFixture(NON_DOMAIN_JOINED),
    );
    const result = validateCredSpecDocument(doc);
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
    let doc: unknown = loadCredSpecFixture(NON_DOMAIN_JOINED);
    doc = editJson(doc, "CmsPlugins", REMOVE);
    doc = editJson(doc, "DomainJoinConfig.Sid", "S-1-5-18");
    doc = editJson(doc, "DomainJoinConfig.Guid", REMOVE);
    doc = editJson(doc, `${ACCOUNTS}[0].Scope`, REMOVE);
    doc = editJson(doc, `${HOST}.PluginGUID`, REMOVE);
    const result = validateCredSpecDocument(doc);
    expect(result.problems.map((p) => p.path)).toEqual([
      "CmsPlugins",
      "DomainJoinConfig.Sid",
      "DomainJoinConfig.Guid",
      `${ACCOUNTS}[0].Scope`,
      `${HOST}.PluginGUID`,
    ]);
  });

  it("accepts a GUID in braces and Scope in another letter case", () => {
    let doc = editJson(
      loadCredSpecFixture(DOMAIN_JOINED),
      "DomainJoinConfig.Guid",
      "{6A3C1F0E-2B4D-4E8F-9A1B-0C2D3E4F5A6B}",
    );
    doc = editJson(doc, `${ACCOUNTS}[0].Scope`, "CONTOSO.COM");
    doc = editJson(doc, `${ACCOUNTS}[1]`, REMOVE);
    expect(validateCredSpecDocument(doc)).toMatchObject({ ok: true, problems: [] });
  });

  it("warns about unknown fields, which the CRD schema prunes, without failing", () => {
    let doc = editJson(loadCredSpecFixture(NON_DOMAIN_JOINED), "Extra", 1);
    doc = editJson(doc, `${HOST}.pluginInput`, PLUGIN_INPUT_MARKER);
    const result = validateCredSpecDocument(doc);
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
    expect(parseCredSpecJson(plain)).toEqual({ ok: true, value: loadCredSpecFixture(NON_DOMAIN_JOINED) });
    expect(parseCredSpecJson(withBom)).toEqual({ ok: true, value: loadCredSpecFixture(NON_DOMAIN_JOINED) });
  });

  it("parses UTF-16 with a byte order mark, as Windows PowerShell 5.1 writes with Out-File", () => {
    expect(parseCredSpecJson(utf16(text, "le"))).toEqual({ ok: true, value: loadCredSpecFixture(NON_DOMAIN_JOINED) });
    expect(parseCredSpecJson(utf16(text, "be"))).toEqual({ ok: true, value: loadCredSpecFixture(NON_DOMAIN_JOINED) });
  });

  it("reports UTF-16 without a byte order mark with a hint to save as UTF-8", () => {
    const result = parseCredSpecJson(utf16(text, "none"));
    expect(result).toEqual({
      ok: false,
      problems: [{ path: "", message: expect.stringMatching(/UTF-16.*UTF-8/) as string }],
    });
  });

  it("reports bytes that are not UTF-8", () => {
    const result = parseCredSpecJson(new Uint8Array([0x7b, 0xc3, 0x28, 0x7d]));
    expect(result).toEqual({
      ok: false,
      problems: [{ path: "", message: expect.stringMatching(/not UTF-8/) as string }],
    });
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
