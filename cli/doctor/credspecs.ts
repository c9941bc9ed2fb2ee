/**
 * The CRD served, and every credspec well formed by `gmsa-webhooks credspec`'s checks. A stored credspec cannot repeat
 * a key (the API server re-encodes what it stores): the duplicate-key rule only concerns contents inlined into pods.
 */
import type { V1CustomResourceDefinition } from "@kubernetes/client-node";
import { CREDSPEC_GROUP, CREDSPEC_RESOURCE } from "../../shared/credspec/resource.ts";
import { formatCredSpecProblem, validateCredSpecDocument } from "../credspec/validate.ts";
import { finding, listItems, statusMessage, type DoctorCluster, type Finding } from "./findings.ts";

const CRD_NAME = `${CREDSPEC_RESOURCE}.${CREDSPEC_GROUP}`;
const SERVED_VERSIONS = ["v1", "v1alpha1"];

type CredSpecObject = { metadata: { name: string }; credspec?: unknown };

/**
 * The CRD (present, Established, serving both versions) and every credspec, problems by name and field; `names`:
 * well-formed first; `existing`: every credspec's name, when the list could be read.
 */
export async function checkCrdAndCredSpecs(
  cluster: DoctorCluster,
): Promise<{ findings: Finding[]; names: string[]; existing?: ReadonlySet<string> }> {
  const { status, body } = await cluster.request({
    method: "GET",
    path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD_NAME}`,
  });
  const fix =
    "apply infra/deploy/crd (or install the chart with crd.install: true; docs/migration.md when windows-gmsa installed it)";
  const fail = (message: string) => finding("crd", "fail", message, fix);
  if (status === 404) return { findings: [fail(`CustomResourceDefinition ${CRD_NAME} is not installed`)], names: [] };
  const other = `GET CustomResourceDefinition ${CRD_NAME} answered ${status}: ${statusMessage(body)}`;
  if (status !== 200) return { findings: [finding("crd", "fail", other)], names: [] };
  const crd = body as V1CustomResourceDefinition;
  const findings: Finding[] = [];
  const established = crd.status?.conditions?.find((c) => c.type === "Established");
  if (established?.status !== "True")
    findings.push(fail(`${CRD_NAME} is not Established${established?.message ? `: ${established.message}` : ""}`));
  const served = (crd.spec?.versions ?? []).filter((v) => v.served).map((v) => v.name);
  const unserved = SERVED_VERSIONS.filter((v) => !served.includes(v));
  if (unserved.length > 0)
    findings.push(
      fail(`${CRD_NAME} does not serve ${unserved.join(" and ")} (serves ${served.join(", ") || "nothing"})`),
    );
  if (findings.length === 0)
    findings.push(finding("crd", "pass", `${CRD_NAME} is Established and serves ${SERVED_VERSIONS.join(" and ")}`));
  const list = await listItems<CredSpecObject>(cluster, "credspec", `/apis/${CREDSPEC_GROUP}/v1/${CREDSPEC_RESOURCE}`);
  if (!Array.isArray(list)) return { findings: [...findings, list], names: [] };
  const wellFormed: string[] = [];
  for (const {
    metadata: { name },
    credspec,
  } of list) {
    const check = `credspec/${name}`;
    const fix = `fix it from New-CredentialSpec's output: npx gmsa-webhooks credspec <file> --name ${name} | kubectl apply -f -`;
    if (credspec === undefined) {
      findings.push(
        finding(
          check,
          "fail",
          `GMSACredentialSpec ${name} has no credspec field: pods naming it are refused (422)`,
          fix,
        ),
      );
      continue;
    }
    const result = validateCredSpecDocument(credspec);
    for (const problem of result.problems)
      findings.push(
        finding(check, "fail", `GMSACredentialSpec ${name}: credspec.${formatCredSpecProblem(problem)}`, fix),
      );
    // The shared warning speaks of a manifest still to apply; here the field was stored, so pods get it inlined.
    for (const { path } of result.warnings) {
      findings.push(
        finding(
          check,
          "warn",
          `GMSACredentialSpec ${name}: credspec.${path}: is not a field of the credential spec schema; pods get it inlined`,
        ),
      );
    }
    if (result.ok) wellFormed.push(name);
    if (result.ok && result.warnings.length === 0)
      findings.push(finding(check, "pass", `GMSACredentialSpec ${name} is well formed`));
  }
  if (list.length === 0)
    findings.push(
      finding("credspec", "warn", "no GMSACredentialSpec exists yet", "create one: npx gmsa-webhooks credspec --help"),
    );
  const names = [...wellFormed, ...list.map((i) => i.metadata.name).filter((n) => !wellFormed.includes(n))];
  return { findings, names, existing: new Set(names) };
}
