/**
 * The GMSACredentialSpec CRD installed and served (v1 and v1alpha1), and every credspec well formed by the same
 * checks as `gmsa-webhooks credspec` (shared/credspec/validate.ts: required fields, GUID and SID shapes,
 * HostAccountConfig, the 64 KiB limit). A stored credspec cannot repeat a key: the API server re-encodes what it
 * stores, so the duplicate-key rule only concerns contents inlined into pods, which authorize refuses.
 */
import { CREDSPEC_GROUP, CREDSPEC_RESOURCE } from "../../../shared/credspec/resource.ts";
import { formatCredSpecProblem, validateCredSpecDocument } from "../../../shared/credspec/validate.ts";
import { finding, statusMessage, type DoctorCluster, type Finding } from "./findings.ts";

const CRD_NAME = `${CREDSPEC_RESOURCE}.${CREDSPEC_GROUP}`;
const SERVED_VERSIONS = ["v1", "v1alpha1"];

interface Crd {
  spec?: { versions?: { name: string; served?: boolean; storage?: boolean }[] };
  status?: { conditions?: { type: string; status: string; message?: string }[] };
}

/** Checks the CRD object: present, Established, serving both versions. */
export function checkCrd(status: number, body: unknown): Finding[] {
  const check = "crd";
  const fix = "apply infra/crd (or install the chart with crd.install: true; docs/migration.md when windows-gmsa installed it)";
  if (status === 404) return [finding(check, "fail", `CustomResourceDefinition ${CRD_NAME} is not installed`, fix)];
  if (status !== 200) return [finding(check, "fail", `GET CustomResourceDefinition ${CRD_NAME} answered ${status}: ${statusMessage(body)}`)];
  const crd = body as Crd;
  const findings: Finding[] = [];
  const established = crd.status?.conditions?.find((c) => c.type === "Established");
  if (established?.status !== "True") {
    findings.push(finding(check, "fail", `${CRD_NAME} is not Established${established?.message ? `: ${established.message}` : ""}`, fix));
  }
  const served = (crd.spec?.versions ?? []).filter((v) => v.served === true).map((v) => v.name);
  const unserved = SERVED_VERSIONS.filter((v) => !served.includes(v));
  if (unserved.length > 0) {
    findings.push(finding(check, "fail", `${CRD_NAME} does not serve ${unserved.join(" and ")} (serves ${served.join(", ") || "nothing"})`, fix));
  }
  return findings.length > 0 ? findings : [finding(check, "pass", `${CRD_NAME} is Established and serves ${SERVED_VERSIONS.join(" and ")}`)];
}

interface CredSpecObject {
  metadata: { name: string };
  credspec?: unknown;
}

/**
 * Validates each credspec; a finding names the credspec and the field.
 * @returns the findings and the names of the well-formed credspecs, in order.
 */
export function checkCredSpecs(items: readonly CredSpecObject[]): { findings: Finding[]; wellFormed: string[] } {
  const findings: Finding[] = [];
  const wellFormed: string[] = [];
  for (const item of items) {
    const name = item.metadata.name;
    const check = `credspec/${name}`;
    const fix = `fix it from New-CredentialSpec's output: npx gmsa-webhooks credspec <file> --name ${name} | kubectl apply -f -`;
    if (item.credspec === undefined) {
      findings.push(finding(check, "fail", `GMSACredentialSpec ${name} has no credspec field: pods naming it are refused (422)`, fix));
      continue;
    }
    const result = validateCredSpecDocument(item.credspec);
    for (const problem of result.problems) findings.push(finding(check, "fail", `GMSACredentialSpec ${name}: credspec.${formatCredSpecProblem(problem)}`, fix));
    // The shared warning speaks of a manifest still to apply; here the field was stored, so pods get it inlined.
    for (const { path } of result.warnings) {
      findings.push(finding(check, "warn", `GMSACredentialSpec ${name}: credspec.${path}: is not a field of the credential spec schema; pods get it inlined`));
    }
    if (result.ok) {
      wellFormed.push(name);
      if (result.warnings.length === 0) findings.push(finding(check, "pass", `GMSACredentialSpec ${name} is well formed`));
    }
  }
  if (items.length === 0) findings.push(finding("credspec", "warn", "no GMSACredentialSpec exists yet", "create one: npx gmsa-webhooks credspec --help"));
  return { findings, wellFormed };
}

/** GETs the CRD and the credspecs and checks both. */
export async function checkCrdAndCredSpecs(cluster: DoctorCluster): Promise<{ findings: Finding[]; wellFormed: string[]; all: string[] }> {
  const crd = await cluster.request({ method: "GET", path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD_NAME}` });
  const findings = checkCrd(crd.status, crd.body);
  if (crd.status !== 200) return { findings, wellFormed: [], all: [] };
  const list = await cluster.request({ method: "GET", path: `/apis/${CREDSPEC_GROUP}/v1/${CREDSPEC_RESOURCE}` });
  if (list.status !== 200) {
    findings.push(finding("credspec", "fail", `GET ${CREDSPEC_RESOURCE} answered ${list.status}: ${statusMessage(list.body)}`));
    return { findings, wellFormed: [], all: [] };
  }
  const items = (list.body as { items?: CredSpecObject[] }).items ?? [];
  const checked = checkCredSpecs(items);
  return { findings: [...findings, ...checked.findings], wellFormed: checked.wellFormed, all: items.map((i) => i.metadata.name) };
}
