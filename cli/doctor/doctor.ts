/**
 * `kubectl gmsa doctor`: every check of docs/doctor.md in order, read-only (GETs, access reviews, dry runs), against
 * the cluster the flags select; exit 0 well, 1 a failure. A failing end-to-end probe after an earlier failure (an
 * earlier probe's included) is reported as a skip: the earlier failure explains it, so each fault is named once.
 */
import type { V1Namespace, V1Node } from "@kubernetes/client-node";
import { FUNCTION_NAMES } from "../../shared/config/index.ts";
import { parseServiceAccountRef } from "../credspec/render.ts";
import { isDns1123Subdomain } from "../../shared/policy/checks.ts";
import { clusterCommand, CLUSTER_FLAGS_USAGE, printResult } from "../cluster.ts";
import { EXIT_INVALID, EXIT_OK } from "../io.ts";
import { checkFunction } from "./certificates.ts";
import { checkCrdAndCredSpecs } from "./credspecs.ts";
import {
  buildDoctorReport,
  finding,
  findingsOr,
  formatFindingsText,
  listItems,
  listOrNone,
  type DoctorCluster,
  type DoctorOptions,
  type Finding,
} from "./findings.ts";
import { checkIdentities, findIdentities } from "./identities.ts";
import { checkGmsaPods, checkWindowsNodes, isAksCluster, type PodObject } from "./nodes.ts";
import { checkOldOptOutLabel } from "./namespaces.ts";
import { findProbeSubjects, runProbes } from "./probe.ts";
import { listPodTemplates } from "./templates.ts";
import { checkWebhookConfigurations, exemptNamespaces, type WebhookConfiguration } from "./webhooks.ts";

/** Runs every check; the exit status is 1 when any finding is `fail`. */
export async function runDoctor(cluster: DoctorCluster, options: DoctorOptions = {}): Promise<Finding[]> {
  const credspecs = await checkCrdAndCredSpecs(cluster);
  const findings = [...credspecs.findings];
  const nodes = await listItems<V1Node>(cluster, "nodes", "/api/v1/nodes");
  findings.push(Array.isArray(nodes) ? checkWindowsNodes(nodes) : nodes);

  const list = (kind: string) =>
    listItems<WebhookConfiguration>(
      cluster,
      "webhooks",
      `/apis/admissionregistration.k8s.io/v1/${kind}webhookconfigurations`,
    );
  const [mutating, validating] = await Promise.all([list("mutating"), list("validating")]);
  if (!Array.isArray(mutating)) return [...findings, mutating];
  if (!Array.isArray(validating)) return [...findings, validating];
  const webhooks = checkWebhookConfigurations({ mutating, validating }, Array.isArray(nodes) && isAksCluster(nodes));
  findings.push(...webhooks.findings);
  for (const found of webhooks.found) findings.push(...(await checkFunction(cluster, found, Date.now())));
  findings.push(...(await checkIdentities(cluster, await findIdentities(cluster, options.identities))));
  skipReadinessOfUnboundFunctions(findings);
  findings.push(...checkOldOptOutLabel(await listOrNone<V1Namespace>(cluster, "/api/v1/namespaces")));
  const exempt = exemptNamespaces(webhooks.found);
  const pods = await listItems<PodObject>(cluster, "pods", "/api/v1/pods");
  const context = { existing: credspecs.existing, exempt, templates: await listPodTemplates(cluster) };
  findings.push(
    ...(Array.isArray(pods) ? await findingsOr("pods/use", () => checkGmsaPods(cluster, pods, context)) : [pods]),
  );
  let earlierFailure = findings.some((f) => f.status === "fail");
  const probes = await findingsOr("end-to-end", async () => {
    const subjects = await findProbeSubjects(cluster, credspecs.names, options, exempt);
    return "status" in subjects ? [subjects] : await runProbes(cluster, subjects, webhooks.found);
  });
  for (const probe of probes) {
    // A failing may-use probe explains a failing may-not-use one too: both pods meet the same webhooks.
    const inconclusive = earlierFailure && probe.status === "fail";
    findings.push(
      inconclusive
        ? { ...probe, status: "skip", message: `${probe.message} (follows from the failures above)` }
        : probe,
    );
    earlierFailure ||= probe.status === "fail";
  }
  if (webhooks.found.length === 0) findings.push(finding("end-to-end", "skip", "no webhook of ours is registered"));
  return findings;
}

/**
 * A function without its RBAC is not Ready (its /readyz asks the API server), so `rbac/FN` names the fault and a
 * failing `readyz/FN` becomes a skip saying so; a Deployment scaled to 0 is a fault of its own and stays.
 */
function skipReadinessOfUnboundFunctions(findings: Finding[]): void {
  for (const fn of FUNCTION_NAMES) {
    if (!findings.some((f) => f.check === `rbac/${fn}` && f.status === "fail")) continue;
    const index = findings.findIndex(
      (f) => f.check === `readyz/${fn}` && f.status === "fail" && !f.message.includes("scaled to 0"),
    );
    if (index !== -1)
      findings[index] = {
        ...findings[index]!,
        status: "skip",
        message: `${findings[index]!.message} (follows from rbac/${fn} below)`,
      };
  }
}

/** `gmsa-webhooks doctor --help`. */
const DOCTOR_USAGE = `Usage: gmsa-webhooks doctor [options]

Checks that an install works, read-only (GETs, access reviews, dry runs): the CRD,
both webhook configurations, their certificates, the functions' /readyz and RBAC,
every credspec, Windows nodes, GMSA pods and the pod templates of workloads, and
two dry-run pod creates through the API server (one expanded, one refused with 403). One line per check, with
what is wrong and how to fix it (docs/doctor.md).

Options:
  --credspec <name>              the credspec the dry-run probes name (default: one a
                                 bound service account may use)
  --service-account <ns:name>    a service account that may use it (default: found
                                 through RoleBindings and access reviews)
  --expand-identity <user>       the user expand authenticates as, when it is not the
  --authorize-identity <user>    chart's or infra/deploy/rbac's ServiceAccount (serverless)

-n limits the probes' search to that namespace.

${CLUSTER_FLAGS_USAGE}
Example:
  kubectl gmsa doctor
`;

const TEXT = { type: "string" } as const;
const OPTIONS = { credspec: TEXT, "service-account": TEXT, "expand-identity": TEXT, "authorize-identity": TEXT };

/** `gmsa-webhooks doctor ...` / `kubectl gmsa doctor ...`: resolves to the exit status (0 well, 1 a failure, 2 usage). */
export const runDoctorCommand = clusterCommand({
  name: "doctor",
  options: OPTIONS,
  usage: DOCTOR_USAGE,
  check({ values, positionals }) {
    const errors = positionals.map((p) => `unexpected argument ${JSON.stringify(p)}`);
    const { credspec, "service-account": sa } = values;
    if (credspec !== undefined && !isDns1123Subdomain(credspec))
      errors.push(`--credspec ${JSON.stringify(credspec)} is not a DNS-1123 subdomain`);
    if (sa !== undefined && parseServiceAccountRef(sa) === undefined)
      errors.push(`--service-account ${JSON.stringify(sa)} is not <namespace>:<name>`);
    for (const fn of FUNCTION_NAMES)
      if (values[`${fn}-identity`] === "") errors.push(`--${fn}-identity must not be empty`);
    return errors;
  },
  async run({ flags, values }, connection, io) {
    const { credspec, "service-account": sa, "expand-identity": expand, "authorize-identity": authorize } = values;
    const serviceAccount = sa === undefined ? undefined : parseServiceAccountRef(sa);
    const findings = await runDoctor(connection, {
      credspec,
      serviceAccount,
      namespace: flags.namespace,
      identities: { expand, authorize },
    });
    printResult(io, flags.output, buildDoctorReport(findings), (paint) => formatFindingsText(findings, paint));
    return findings.some((f) => f.status === "fail") ? EXIT_INVALID : EXIT_OK;
  },
});
