import { OUTPUT_FORMATS, type OutputFormat } from "../../shared/credspec/format.ts";
import { isRbacName, parseServiceAccountRef, type ServiceAccountRef } from "../../shared/credspec/names.ts";
import { isDns1123Subdomain } from "../../shared/policy/names.ts";
import { parseStrictArgs } from "./strict-args.ts";

/** The `credspec` command line, checked. `input` is a file path or `-` for stdin. */
export interface CredSpecArgs {
  help: boolean;
  input: string;
  name: string | undefined;
  roleName: string | undefined;
  serviceAccounts: ServiceAccountRef[];
  output: OutputFormat;
}

/** Parsed arguments, or every usage problem found. */
export type CredSpecArgsResult = { ok: true; args: CredSpecArgs } | { ok: false; errors: string[] };

/** Parses and checks `credspec` arguments (after the command word) in strict mode. */
export function parseCredSpecArgs(argv: readonly string[]): CredSpecArgsResult {
  const result = parseStrictArgs(argv, {
    name: { type: "string" },
    "role-name": { type: "string" },
    "service-account": { type: "string", multiple: true },
    output: { type: "string", short: "o", default: "yaml" },
    help: { type: "boolean", short: "h", default: false },
  });
  if (!result.ok) return result;
  const { values, positionals } = result.parsed;
  const errors: string[] = [];
  if (values.help) return { ok: true, args: { ...defaults(), help: true } };

  if (positionals.length !== 1) {
    errors.push(positionals.length === 0 ? "missing input: a file, or - for stdin" : "expected one input file");
  }
  const { name, output } = values;
  const roleName = values["role-name"];
  if (name !== undefined && !isDns1123Subdomain(name)) {
    errors.push(`--name ${JSON.stringify(name)} is not a DNS-1123 subdomain (lowercase a-z, 0-9, '-', '.')`);
  }
  if (roleName !== undefined && !isRbacName(roleName)) {
    errors.push(`--role-name ${JSON.stringify(roleName)} is not a valid object name`);
  }
  const serviceAccounts: ServiceAccountRef[] = [];
  for (const text of values["service-account"] ?? []) {
    const ref = parseServiceAccountRef(text);
    if (ref === undefined) errors.push(`--service-account ${JSON.stringify(text)} is not namespace:name`);
    else serviceAccounts.push(ref);
  }
  const format = OUTPUT_FORMATS.find((candidate) => candidate === output);
  if (format === undefined) errors.push(`--output must be one of ${OUTPUT_FORMATS.join(", ")}`);
  if (errors.length > 0 || format === undefined) return { ok: false, errors };
  return { ok: true, args: { help: false, input: positionals[0] ?? "-", name, roleName, serviceAccounts, output: format } };
}

function defaults(): CredSpecArgs {
  return { help: false, input: "-", name: undefined, roleName: undefined, serviceAccounts: [], output: "yaml" };
}
