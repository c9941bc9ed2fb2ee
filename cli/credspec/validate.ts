import * as z from "zod/mini";
import { MAX_CREDSPEC_CONTENTS_BYTES } from "../../shared/policy/expand.ts";
import { formatIssuePath } from "../../shared/zod-english.ts";

/** A finding at a JSON path ("" for the document); never the value found: `PluginInput` may hold credentials. */
export interface CredSpecProblem {
  path: string;
  message: string;
}

/** Renders a problem as one line, `path: message`, with `(document)` for the root. */
export function formatCredSpecProblem(problem: CredSpecProblem): string {
  return `${problem.path === "" ? "(document)" : problem.path}: ${problem.message}`;
}

const DOMAIN_SID = /^S-1-5-21-(\d{1,10})-(\d{1,10})-(\d{1,10})$/;
const GUID = /^(?:\{[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}\}|[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12})$/i;
const TYPE_NAMES: Record<string, string> = { object: "a JSON object", array: "an array", string: "a string" };

/** A missing field, or one of the wrong type; messages name the JSON type found, never the value. */
function typeMessage({
  code,
  expected,
  input,
}: {
  code?: string;
  expected?: string;
  input?: unknown;
}): string | undefined {
  if (code !== "invalid_type") return undefined;
  if (input === undefined) return "is required";
  const found =
    input === null
      ? "null"
      : Array.isArray(input)
        ? "an array"
        : typeof input === "object"
          ? "an object"
          : `a ${typeof input}`;
  return `must be ${TYPE_NAMES[expected ?? ""] ?? expected}, got ${found}`;
}

const object = <S extends z.core.$ZodLooseShape>(shape: S) => z.strictObject(shape, { error: typeMessage });

function text(format?: { test: (value: string) => boolean; message: string }) {
  const nonEmpty = z
    .string({ error: typeMessage })
    .check(z.refine<string>((value) => value.trim() !== "", { error: "must not be empty", abort: true }));
  return format === undefined ? nonEmpty : nonEmpty.check(z.refine<string>(format.test, format.message));
}

const guid = (message: string) => text({ test: (value) => GUID.test(value), message });

/** The credential spec JSON of the GMSA KEP's example and the windows-gmsa CRD (`deploy/gmsa-crd.yml`). */
const CredSpecSchema = object({
  CmsPlugins: z
    .array(z.string({ error: typeMessage }), { error: typeMessage })
    .check(z.refine((plugins) => plugins.includes("ActiveDirectory"), 'must contain "ActiveDirectory"')),
  DomainJoinConfig: object({
    Sid: text({ test: isDomainSid, message: "must be a domain SID of the form S-1-5-21-<n>-<n>-<n>" }),
    MachineAccountName: text(),
    Guid: guid("must be a GUID such as 01234567-89ab-cdef-0123-456789abcdef"),
    DnsTreeName: text(),
    DnsName: text(),
    NetBiosName: text(),
  }),
  ActiveDirectoryConfig: object({
    GroupManagedServiceAccounts: z
      .array(object({ Name: text(), Scope: text() }), { error: typeMessage })
      .check(z.minLength(1, "must list at least one account")),
    /** How a node that is not joined to the domain fetches the gMSA password (Container Credential Guard plugin). */
    HostAccountConfig: z.exactOptional(
      object({
        PortableCcgVersion: text({
          test: (value) => /^\d+$/.test(value),
          message: 'must be a version number as a string, such as "1"',
        }),
        PluginGUID: guid("must be the plugin's COM class GUID, such as {01234567-89ab-cdef-0123-456789abcdef}"),
        // Plugin-specific: a secret store reference or credentials, never logged. The CRD types it as a string.
        PluginInput: text(),
      }),
    ),
  }),
});

/** The credential spec JSON that Windows' `New-CredentialSpec` writes, as far as this tool checks it. */
export type CredSpecDocument = z.output<typeof CredSpecSchema>;

/** `problems` is empty exactly when `ok`; `warnings` never block. */
export type CredSpecValidation =
  | { ok: true; document: CredSpecDocument; problems: CredSpecProblem[]; warnings: CredSpecProblem[] }
  | { ok: false; problems: CredSpecProblem[]; warnings: CredSpecProblem[] };

/** Checks a parsed credential spec, every problem together; unknown fields are warnings (the CRD's schema prunes them). */
export function validateCredSpecDocument(json: unknown): CredSpecValidation {
  const result = CredSpecSchema.safeParse(json);
  const issues = result.error?.issues ?? [];
  const isUnknown = (issue: z.core.$ZodIssue): issue is z.core.$ZodIssueUnrecognizedKeys =>
    issue.code === "unrecognized_keys";
  // zod reports an object's unknown keys after its fields: outer objects first, as the document reads.
  const unknown = issues.filter(isUnknown).sort((a, b) => a.path.length - b.path.length);
  const message = "is not in the GMSACredentialSpec schema; the API server drops unknown fields";
  const warnings = unknown.flatMap((issue) =>
    issue.keys.map((key) => ({ path: formatIssuePath([...issue.path, key]), message })),
  );
  const problems = issues
    .filter((issue) => !isUnknown(issue))
    .map((issue) => ({ path: formatIssuePath(issue.path), message: `${issue.message}${caseHint(json, issue)}` }));
  if (result.success) problems.push(...checkDocument(result.data));
  if (problems.length > 0) return { ok: false, problems, warnings };
  return { ok: true, document: json as CredSpecDocument, problems, warnings };
}

function checkDocument(document: CredSpecDocument): CredSpecProblem[] {
  const problems: CredSpecProblem[] = [];
  // Domain and NetBIOS names compare case-insensitively; New-CredentialSpec writes one entry for each.
  const domains = new Set(
    [document.DomainJoinConfig.DnsName, document.DomainJoinConfig.NetBiosName].map((name) => name.toUpperCase()),
  );
  if (
    !document.ActiveDirectoryConfig.GroupManagedServiceAccounts.some((account) =>
      domains.has(account.Scope.toUpperCase()),
    )
  ) {
    const message = "needs an account whose Scope equals DomainJoinConfig.DnsName or DomainJoinConfig.NetBiosName";
    problems.push({ path: "ActiveDirectoryConfig.GroupManagedServiceAccounts", message });
  }
  // Expand inlines `JSON.stringify(credspec)` into each pod, where the API server caps it (docs/security.md, Status codes).
  const bytes = new TextEncoder().encode(JSON.stringify(document)).length;
  if (bytes > MAX_CREDSPEC_CONTENTS_BYTES) {
    problems.push({
      path: "",
      message: `is ${bytes} bytes as compact JSON; a pod's gmsaCredentialSpec holds at most ${MAX_CREDSPEC_CONTENTS_BYTES}`,
    });
  }
  return problems;
}

/** For a missing field, the key that differs from it only in letter case, if the document has one. */
function caseHint(json: unknown, issue: z.core.$ZodIssue): string {
  const key = issue.path.at(-1);
  if (issue.code !== "invalid_type" || issue.input !== undefined || typeof key !== "string") return "";
  const parent = issue.path
    .slice(0, -1)
    .reduce<unknown>((node, segment) => (node as Record<PropertyKey, unknown>)[segment], json);
  const nearly = Object.keys(parent as object).find((other) => other.toLowerCase() === key.toLowerCase());
  return nearly === undefined ? "" : ` (found "${nearly}"; field names are case-sensitive)`;
}

/** A domain SID has three 32-bit sub-authorities after S-1-5-21 (MS-DTYP 2.4.2, well-known SID structures). */
function isDomainSid(sid: string): boolean {
  const match = DOMAIN_SID.exec(sid);
  return match !== null && match.slice(1).every((n) => Number(n) <= 0xffff_ffff);
}

/**
 * Decodes and parses a credential spec file: UTF-8 (with or without a byte order mark), or UTF-16 with one (Windows
 * PowerShell 5.1's `>`). Only a syntax error's line and column are kept: V8 quotes the text, which may be a credential.
 */
export function parseCredSpecJson(
  bytes: Uint8Array,
): { ok: true; value: unknown } | { ok: false; problems: CredSpecProblem[] } {
  const fail = (message: string) => ({ ok: false as const, problems: [{ path: "", message: `input ${message}` }] });
  const encoding =
    bytes[0] === 0xff && bytes[1] === 0xfe ? "utf-16le" : bytes[0] === 0xfe && bytes[1] === 0xff ? "utf-16be" : "utf-8";
  let text: string;
  try {
    // fatal: reject malformed input instead of inserting U+FFFD; the decoder drops a leading byte order mark.
    text = new TextDecoder(encoding, { fatal: true }).decode(bytes);
  } catch {
    return fail("is not UTF-8 or UTF-16 text");
  }
  if (text.trim() === "") return fail("is empty; expected the JSON that New-CredentialSpec writes");
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (err) {
    const where = err instanceof SyntaxError ? /\(line \d+ column \d+\)/.exec(err.message)?.[0] : undefined;
    // UTF-16 without a byte order mark decodes as UTF-8 with a NUL after every ASCII character.
    const hint = text.includes("\0") ? "; it looks like UTF-16 without a byte order mark, save it as UTF-8" : "";
    return fail(`is not valid JSON${where === undefined ? "" : ` ${where}`}${hint}`);
  }
}
