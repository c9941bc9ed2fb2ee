import {
  buildCredSpecResources,
  deriveCredSpecName,
  formatKubeObjects,
  isRbacName,
  OUTPUT_FORMATS,
  parseServiceAccountRef,
} from "./render.ts";
import {
  formatCredSpecProblem,
  parseCredSpecJson,
  validateCredSpecDocument,
  type CredSpecProblem,
} from "./validate.ts";
import { isDns1123Subdomain } from "../../shared/policy/checks.ts";
import { command, EXIT_INVALID, EXIT_OK, EXIT_USAGE, readInput } from "../io.ts";

const OPTIONS = {
  name: { type: "string" },
  "role-name": { type: "string" },
  "service-account": { type: "string", multiple: true },
  output: { type: "string", short: "o", default: "yaml" },
} as const;

/** Runs `credspec`, resolving to the exit status. Only stdout holds credential spec values: stderr names fields, as PluginInput may hold a secret. */
export const runCredSpecCommand = command({
  name: "credspec",
  options: OPTIONS,
  usage: `Usage: gmsa-webhooks credspec [options] <file | ->

Checks the credential spec JSON that Windows' New-CredentialSpec writes (UTF-8, or
UTF-16 with BOM; - reads stdin) and prints, for kubectl apply -f -, a GMSACredentialSpec
holding it, a ClusterRole that allows "use" of it, and a RoleBinding for each
--service-account. Every problem is reported on stderr by its JSON path.

Options:
  --name <name>                 GMSACredentialSpec name, a DNS-1123 subdomain
                                (default: the first gMSA account name, lowercased)
  --role-name <name>            ClusterRole name (default: <name>-use)
  --service-account <ns:name>   bind it to service account <name> of namespace <ns>; repeatable
  -o, --output yaml|json        output format (default: yaml; json prints a v1 List)
  -h, --help                    show this help

Exit status: 0 printed, 1 invalid credential spec, 2 usage error or unreadable file.

Example:
  npx gmsa-webhooks credspec webapp1.json --service-account web:webapp1 | kubectl apply -f -
`,
  check({ values, positionals }) {
    const errors: string[] = [];
    if (positionals.length !== 1)
      errors.push(positionals.length === 0 ? "missing input: a file, or - for stdin" : "expected one input file");
    const { name, output, "role-name": roleName } = values;
    if (name !== undefined && !isDns1123Subdomain(name))
      errors.push(`--name ${JSON.stringify(name)} is not a DNS-1123 subdomain (lowercase a-z, 0-9, '-', '.')`);
    if (roleName !== undefined && !isRbacName(roleName))
      errors.push(`--role-name ${JSON.stringify(roleName)} is not a valid object name`);
    for (const text of values["service-account"] ?? []) {
      if (parseServiceAccountRef(text) === undefined)
        errors.push(`--service-account ${JSON.stringify(text)} is not namespace:name`);
    }
    if (!OUTPUT_FORMATS.some((format) => format === output))
      errors.push(`--output must be one of ${OUTPUT_FORMATS.join(", ")}`);
    return errors;
  },
  async run({ values, positionals: [input = "-"] }, io) {
    const prefix = `${io.program} credspec: ${input === "-" ? "stdin" : input}`;
    const bytes = await readInput(io, "credspec", input);
    if (bytes === undefined) return EXIT_USAGE;
    const reportProblems = (problems: readonly CredSpecProblem[]): number => {
      io.stderr(
        `${prefix}: invalid credential spec, ${problems.length === 1 ? "1 problem" : `${problems.length} problems`}:\n`,
      );
      for (const problem of problems) io.stderr(`  ${formatCredSpecProblem(problem)}\n`);
      return EXIT_INVALID;
    };

    const json = parseCredSpecJson(bytes);
    if (!json.ok) return reportProblems(json.problems);
    const result = validateCredSpecDocument(json.value);
    for (const warning of result.warnings) io.stderr(`${prefix}: warning: ${formatCredSpecProblem(warning)}\n`);
    if (!result.ok) return reportProblems(result.problems);

    // Validation guarantees at least one account.
    const name =
      values.name ??
      deriveCredSpecName(result.document.ActiveDirectoryConfig.GroupManagedServiceAccounts[0]?.Name ?? "");
    if (name === undefined) {
      return reportProblems([
        {
          path: "ActiveDirectoryConfig.GroupManagedServiceAccounts[0].Name",
          message: "leaves no valid resource name once lowercased; pass --name",
        },
      ]);
    }
    const serviceAccounts = (values["service-account"] ?? []).flatMap((text) => parseServiceAccountRef(text) ?? []);
    const objects = buildCredSpecResources(result.document, { name, roleName: values["role-name"], serviceAccounts });
    io.stdout(formatKubeObjects(objects, OUTPUT_FORMATS.find((format) => format === values.output) ?? "yaml"));
    return EXIT_OK;
  },
});
