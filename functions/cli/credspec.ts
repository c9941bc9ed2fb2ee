import {
  buildCredSpecResources,
  deriveCredSpecName,
  formatKubeObjects,
  isRbacName,
  OUTPUT_FORMATS,
  parseServiceAccountRef,
  type OutputFormat,
  type ServiceAccountRef,
} from "../../shared/credspec/render.ts";
import { formatCredSpecProblem, parseCredSpecJson, validateCredSpecDocument, type CredSpecProblem } from "../../shared/credspec/validate.ts";
import { isDns1123Subdomain } from "../../shared/policy/names.ts";
import { answerUsage, EXIT_INVALID, EXIT_OK, EXIT_USAGE, parseStrictArgs, programOf, type ArgsResult, type CliIo } from "./io.ts";
import { CREDSPEC_USAGE } from "./usage.ts";


/** The `credspec` command line, checked. `input` is a file path or `-` for stdin. */
type CredSpecArgs =
  | { help: true }
  | { help: false; input: string; name: string | undefined; roleName: string | undefined; serviceAccounts: ServiceAccountRef[]; output: OutputFormat };

/** Parses and checks `credspec` arguments (after the command word) in strict mode. */
function parseCredSpecArgs(argv: readonly string[]): ArgsResult<CredSpecArgs> {
  const result = parseStrictArgs(argv, {
    name: { type: "string" },
    "role-name": { type: "string" },
    "service-account": { type: "string", multiple: true },
    output: { type: "string", short: "o", default: "yaml" },
    help: { type: "boolean", short: "h", default: false },
  });
  if (!result.ok) return result;
  const { values, positionals } = result.parsed;
  if (values.help) return { ok: true, args: { help: true } };
  const errors: string[] = [];
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

/**
 * `gmsa-webhooks credspec`: validates a credential spec and prints its GMSACredentialSpec, ClusterRole and RoleBindings;
 * resolves to the exit status. Only stdout holds credential spec values; stderr names fields (PluginInput may hold a secret).
 */
export async function runCredSpecCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseCredSpecArgs(argv);
  if (!parsed.ok || parsed.args.help) return answerUsage("credspec", parsed, CREDSPEC_USAGE, io);
  const { args } = parsed;

  const source = args.input === "-" ? "stdin" : args.input;
  let bytes: Uint8Array;
  try {
    bytes = args.input === "-" ? await io.readStdin() : await io.readFile(args.input);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    io.stderr(`${programOf(io)} credspec: cannot read ${source}${typeof code === "string" ? ` (${code})` : ""}\n`);
    return EXIT_USAGE;
  }

  const json = parseCredSpecJson(bytes);
  if (!json.ok) return reportProblems(io, source, json.problems);
  const result = validateCredSpecDocument(json.value);
  for (const warning of result.warnings) io.stderr(`${programOf(io)} credspec: ${source}: warning: ${formatCredSpecProblem(warning)}\n`);
  if (!result.ok) return reportProblems(io, source, result.problems);

  // Validation guarantees at least one account.
  const [firstAccount] = result.document.ActiveDirectoryConfig.GroupManagedServiceAccounts;
  const name = args.name ?? deriveCredSpecName(firstAccount?.Name ?? "");
  if (name === undefined) {
    const path = "ActiveDirectoryConfig.GroupManagedServiceAccounts[0].Name";
    return reportProblems(io, source, [{ path, message: "leaves no valid resource name once lowercased; pass --name" }]);
  }
  const objects = buildCredSpecResources(result.document, {
    name,
    roleName: args.roleName,
    serviceAccounts: args.serviceAccounts,
  });
  io.stdout(formatKubeObjects(objects, args.output));
  return EXIT_OK;
}

function reportProblems(io: CliIo, source: string, problems: readonly CredSpecProblem[]): number {
  const count = problems.length === 1 ? "1 problem" : `${problems.length} problems`;
  io.stderr(`${programOf(io)} credspec: ${source}: invalid credential spec, ${count}:\n`);
  for (const problem of problems) io.stderr(`  ${formatCredSpecProblem(problem)}\n`);
  return EXIT_INVALID;
}
