/** `kubectl gmsa doctor`: every check of docs/doctor.md against the cluster the flags select; exit 0 well, 1 a failure. */
import { FUNCTION_NAMES } from "../../../shared/config/index.ts";
import { parseServiceAccountRef } from "../../../shared/credspec/render.ts";
import { isDns1123Subdomain } from "../../../shared/policy/names.ts";
import { runClusterCommand, type ClusterCommand } from "../cluster.ts";
import { EXIT_INVALID, EXIT_OK, type CliIo } from "../io.ts";
import { printResult } from "../output.ts";
import { CLUSTER_FLAGS_USAGE } from "../usage.ts";
import { runDoctor, type DoctorOptions } from "./doctor.ts";
import { buildDoctorReport, formatFindingsText } from "./format.ts";

/** `gmsa-webhooks doctor --help`. */
export const DOCTOR_USAGE = `Usage: gmsa-webhooks doctor [options]

Checks that an install works, read-only (GETs, access reviews, dry runs): the CRD,
both webhook configurations, their certificates, the functions' /readyz and RBAC,
every credspec, Windows nodes and GMSA pods, and two dry-run pod creates through
the API server (one expanded, one refused with 403). One line per check, with
what is wrong and how to fix it (docs/doctor.md).

Options:
  --credspec <name>              the credspec the dry-run probes name (default: one a
                                 bound service account may use)
  --service-account <ns:name>    a service account that may use it (default: found
                                 through RoleBindings and access reviews)
  --expand-identity <user>       the user expand authenticates as, when it is not the
  --authorize-identity <user>    chart's or infra/rbac's ServiceAccount (serverless)

-n limits the probes' search to that namespace.

${CLUSTER_FLAGS_USAGE}
Example:
  kubectl gmsa doctor
`;

const OPTIONS = {
  credspec: { type: "string" },
  "service-account": { type: "string" },
  "expand-identity": { type: "string" },
  "authorize-identity": { type: "string" },
} as const;

/** The doctor's options from its flags (already checked). */
function doctorOptions(values: Record<keyof typeof OPTIONS, unknown>, namespace: string | undefined): DoctorOptions {
  const text = (name: keyof typeof OPTIONS) => values[name] as string | undefined;
  const identities = Object.fromEntries(FUNCTION_NAMES.flatMap((fn) => (text(`${fn}-identity`) === undefined ? [] : [[fn, text(`${fn}-identity`)!]])));
  const sa = text("service-account");
  return {
    ...(text("credspec") === undefined ? {} : { credspec: text("credspec")! }),
    ...(sa === undefined ? {} : { serviceAccount: parseServiceAccountRef(sa)! }),
    ...(namespace === undefined ? {} : { namespace }),
    identities,
  };
}

const DOCTOR: ClusterCommand<typeof OPTIONS> = {
  name: "doctor",
  options: OPTIONS,
  usage: DOCTOR_USAGE,
  check({ values, positionals }) {
    const errors = positionals.map((p) => `unexpected argument ${JSON.stringify(p)}`);
    const credspec = values.credspec as string | undefined;
    if (credspec !== undefined && !isDns1123Subdomain(credspec)) errors.push(`--credspec ${JSON.stringify(credspec)} is not a DNS-1123 subdomain`);
    const sa = values["service-account"] as string | undefined;
    if (sa !== undefined && parseServiceAccountRef(sa) === undefined) errors.push(`--service-account ${JSON.stringify(sa)} is not <namespace>:<name>`);
    for (const fn of FUNCTION_NAMES) if (values[`${fn}-identity`] === "") errors.push(`--${fn}-identity must not be empty`);
    return errors;
  },
  async run({ flags, values }, connection, io) {
    const findings = await runDoctor(connection, doctorOptions(values, flags.namespace));
    printResult(io, flags.output, buildDoctorReport(findings), (paint) => formatFindingsText(findings, paint));
    return findings.some((f) => f.status === "fail") ? EXIT_INVALID : EXIT_OK;
  },
};

/** `gmsa-webhooks doctor ...` / `kubectl gmsa doctor ...`: resolves to the exit status (0 well, 1 a failure, 2 usage). */
export function runDoctorCommand(argv: readonly string[], io: CliIo): Promise<number> {
  return runClusterCommand(DOCTOR, argv, io);
}
