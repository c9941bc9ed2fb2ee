import { MAX_CREDSPEC_CONTENTS_BYTES } from "../policy/expand.ts";
import type { CredSpecDocument } from "./document.ts";
import { joinPath, type CredSpecProblem } from "./problems.ts";

/**
 * Outcome of {@link validateCredSpecDocument}. `problems` is empty exactly when `ok`; `warnings` never block.
 * Both name fields only, never values.
 */
export type CredSpecValidation =
  | { ok: true; document: CredSpecDocument; problems: CredSpecProblem[]; warnings: CredSpecProblem[] }
  | { ok: false; problems: CredSpecProblem[]; warnings: CredSpecProblem[] };

const DOMAIN_JOIN_FIELDS = ["Sid", "MachineAccountName", "Guid", "DnsTreeName", "DnsName", "NetBiosName"] as const;
const HOST_ACCOUNT_FIELDS = ["PortableCcgVersion", "PluginGUID", "PluginInput"] as const;
const DOMAIN_SID = /^S-1-5-21-(\d{1,10})-(\d{1,10})-(\d{1,10})$/;
const GUID = /^(?:\{[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}\}|[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12})$/i;
const VERSION = /^\d+$/;

type JsonObject = Record<string, unknown>;

interface Collect {
  problems: CredSpecProblem[];
  warnings: CredSpecProblem[];
}

/**
 * Checks a parsed credential spec against the format of the GMSA KEP's example and the GMSACredentialSpec CRD
 * (kubernetes-sigs/windows-gmsa `deploy/gmsa-crd.yml`), reporting every problem together rather than the first.
 * Unknown fields are warnings: the CRD's structural schema prunes them, so they would not reach a pod.
 */
export function validateCredSpecDocument(json: unknown): CredSpecValidation {
  const out: Collect = { problems: [], warnings: [] };
  const root = asObject(json, "", out);
  if (root !== undefined) {
    warnUnknownFields(root, "", ["CmsPlugins", "DomainJoinConfig", "ActiveDirectoryConfig"], out);
    checkCmsPlugins(root, out);
    const domain = checkDomainJoinConfig(root, out);
    checkActiveDirectoryConfig(root, domain, out);
    checkSize(root, out);
  }
  if (out.problems.length > 0) return { ok: false, ...out };
  return { ok: true, document: json as CredSpecDocument, ...out };
}

/** Expand inlines `JSON.stringify(credspec)` into each pod, where the API server caps it (docs/security.md, Status codes). */
function checkSize(root: JsonObject, out: Collect): void {
  const bytes = new TextEncoder().encode(JSON.stringify(root)).length;
  if (bytes <= MAX_CREDSPEC_CONTENTS_BYTES) return;
  problem(out, "", `is ${bytes} bytes as compact JSON; a pod's gmsaCredentialSpec holds at most ${MAX_CREDSPEC_CONTENTS_BYTES}`);
}

function checkCmsPlugins(root: JsonObject, out: Collect): void {
  const plugins = field(root, "", "CmsPlugins", out);
  if (plugins === undefined) return;
  if (!Array.isArray(plugins)) return problem(out, "CmsPlugins", `must be an array, got ${describe(plugins)}`);
  plugins.forEach((plugin, i) => {
    if (typeof plugin !== "string") problem(out, `CmsPlugins[${i}]`, `must be a string, got ${describe(plugin)}`);
  });
  if (!plugins.includes("ActiveDirectory")) problem(out, "CmsPlugins", 'must contain "ActiveDirectory"');
}

/** Format checks of DomainJoinConfig fields beyond "non-empty string". */
const DOMAIN_JOIN_FORMATS: Partial<Record<string, { test: (value: string) => boolean; message: string }>> = {
  Sid: { test: isDomainSid, message: "must be a domain SID of the form S-1-5-21-<n>-<n>-<n>" },
  Guid: { test: (value) => GUID.test(value), message: "must be a GUID such as 01234567-89ab-cdef-0123-456789abcdef" },
};

/** Returns the domain names that a gMSA Scope may equal (the valid ones among DnsName and NetBiosName). */
function checkDomainJoinConfig(root: JsonObject, out: Collect): string[] | undefined {
  const path = "DomainJoinConfig";
  const config = asObject(field(root, "", path, out), path, out, false);
  if (config === undefined) return undefined;
  warnUnknownFields(config, path, DOMAIN_JOIN_FIELDS, out);
  const values = new Map<string, string>();
  for (const name of DOMAIN_JOIN_FIELDS) {
    const value = stringField(config, path, name, out);
    if (value === undefined) continue;
    values.set(name, value);
    const format = DOMAIN_JOIN_FORMATS[name];
    if (format !== undefined && !format.test(value)) problem(out, `${path}.${name}`, format.message);
  }
  return [values.get("DnsName"), values.get("NetBiosName")].filter((name) => name !== undefined);
}

function checkActiveDirectoryConfig(root: JsonObject, domainNames: string[] | undefined, out: Collect): void {
  const path = "ActiveDirectoryConfig";
  const config = asObject(field(root, "", path, out), path, out, false);
  if (config === undefined) return;
  warnUnknownFields(config, path, ["GroupManagedServiceAccounts", "HostAccountConfig"], out);
  checkAccounts(field(config, path, "GroupManagedServiceAccounts", out), domainNames, out);
  if (config.HostAccountConfig !== undefined) checkHostAccountConfig(config.HostAccountConfig, out);
}

function checkAccounts(accounts: unknown, domainNames: string[] | undefined, out: Collect): void {
  const path = "ActiveDirectoryConfig.GroupManagedServiceAccounts";
  if (accounts === undefined) return;
  if (!Array.isArray(accounts)) return problem(out, path, `must be an array, got ${describe(accounts)}`);
  if (accounts.length === 0) return problem(out, path, "must list at least one account");
  const scopes: string[] = [];
  accounts.forEach((item, i) => {
    const account = asObject(item, `${path}[${i}]`, out);
    if (account === undefined) return;
    warnUnknownFields(account, `${path}[${i}]`, ["Name", "Scope"], out);
    stringField(account, `${path}[${i}]`, "Name", out);
    const scope = stringField(account, `${path}[${i}]`, "Scope", out);
    if (scope !== undefined) scopes.push(scope);
  });
  // Domain and NetBIOS names compare case-insensitively; New-CredentialSpec writes one entry for each.
  const names = new Set(domainNames?.map((name) => name.toUpperCase()));
  if (names.size > 0 && !scopes.some((scope) => names.has(scope.toUpperCase()))) {
    problem(out, path, "needs an account whose Scope equals DomainJoinConfig.DnsName or DomainJoinConfig.NetBiosName");
  }
}

function checkHostAccountConfig(value: unknown, out: Collect): void {
  const path = "ActiveDirectoryConfig.HostAccountConfig";
  const config = asObject(value, path, out);
  if (config === undefined) return;
  warnUnknownFields(config, path, HOST_ACCOUNT_FIELDS, out);
  const version = stringField(config, path, "PortableCcgVersion", out);
  if (version !== undefined && !VERSION.test(version)) {
    problem(out, `${path}.PortableCcgVersion`, 'must be a version number as a string, such as "1"');
  }
  const plugin = stringField(config, path, "PluginGUID", out);
  if (plugin !== undefined && !GUID.test(plugin)) {
    const example = "{01234567-89ab-cdef-0123-456789abcdef}";
    problem(out, `${path}.PluginGUID`, `must be the plugin's COM class GUID, such as ${example}`);
  }
  // The CRD types PluginInput as a string; a plugin that expects JSON gets it as a JSON string.
  stringField(config, path, "PluginInput", out);
}

/** Reads `parent[key]`, reporting it as missing (with a hint when only the letter case differs). */
function field(parent: JsonObject, parentPath: string, key: string, out: Collect): unknown {
  const value = parent[key];
  if (value !== undefined) return value;
  const nearly = Object.keys(parent).find((other) => other.toLowerCase() === key.toLowerCase());
  const hint = nearly === undefined ? "" : ` (found "${nearly}"; field names are case-sensitive)`;
  problem(out, joinPath(parentPath, key), `is required${hint}`);
  return undefined;
}

function stringField(parent: JsonObject, parentPath: string, key: string, out: Collect): string | undefined {
  const value = field(parent, parentPath, key, out);
  if (value === undefined) return undefined;
  const path = joinPath(parentPath, key);
  if (typeof value === "string" && value.trim() !== "") return value;
  problem(out, path, typeof value === "string" ? "must not be empty" : `must be a string, got ${describe(value)}`);
  return undefined;
}

function asObject(value: unknown, path: string, out: Collect, reportMissing = true): JsonObject | undefined {
  if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as JsonObject;
  if (value !== undefined || reportMissing) problem(out, path, `must be a JSON object, got ${describe(value)}`);
  return undefined;
}

function warnUnknownFields(object: JsonObject, path: string, known: readonly string[], out: Collect): void {
  for (const key of Object.keys(object)) {
    if (known.includes(key)) continue;
    const message = "is not in the GMSACredentialSpec schema; the API server drops unknown fields";
    out.warnings.push({ path: joinPath(path, key), message });
  }
}

function problem(out: Collect, path: string, message: string): void {
  out.problems.push({ path, message });
}

/** A domain SID has three 32-bit sub-authorities after S-1-5-21 (MS-DTYP 2.4.2, well-known SID structures). */
function isDomainSid(sid: string): boolean {
  const match = DOMAIN_SID.exec(sid);
  return match !== null && match.slice(1).every((n) => Number(n) <= 0xffff_ffff);
}

/** The JSON type of a value, for messages that must not show the value itself. */
function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
