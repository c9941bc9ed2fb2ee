/**
 * The functions' own identities have their RBAC (docs/security.md). Serverless identities (a JWT username, an IAM
 * role's group) have no ServiceAccount to find: the operator names them with flags.
 */
import { FUNCTION_NAMES, type FunctionName } from "../../shared/config/index.ts";
import { readAccessVerdict, serviceAccountSubject } from "../../shared/kube/access-reviews.ts";
import { FUNCTION_NEEDS } from "../../shared/kube/readiness.ts";
import { impersonatedSubject } from "../cluster.ts";
import { finding, statusMessage, type DoctorCluster, type Finding } from "./findings.ts";

/** A user name and its groups, as the API server authenticates a function. */
type Identity = ReturnType<typeof serviceAccountSubject>;

type ServiceAccount = { metadata: { name: string; namespace: string; labels?: Record<string, string> } };

/** Each function's identity: the user name `given` for it, else the chart's ServiceAccount, else infra/deploy/rbac's, if any. */
export async function findIdentities(
  cluster: DoctorCluster,
  given: Partial<Record<FunctionName, string | undefined>> = {},
) {
  const identities: Partial<Record<FunctionName, Identity>> = {};
  for (const fn of FUNCTION_NAMES) if (given[fn] !== undefined) identities[fn] = impersonatedSubject(given[fn]);
  const wanted = FUNCTION_NAMES.filter((fn) => identities[fn] === undefined);
  if (wanted.length === 0) return identities;
  const response = await cluster.request({
    method: "GET",
    path: "/api/v1/serviceaccounts",
    query: { labelSelector: "app.kubernetes.io/name=gmsa-webhooks" },
  });
  const labelled = response.status === 200 ? ((response.body as { items?: ServiceAccount[] }).items ?? []) : [];
  for (const fn of wanted) {
    const chart = labelled.find((sa) => sa.metadata.labels?.["app.kubernetes.io/component"] === fn);
    if (chart !== undefined) {
      identities[fn] = serviceAccountSubject(chart.metadata.namespace, chart.metadata.name);
    } else if (
      (await cluster.request({ method: "GET", path: `/api/v1/namespaces/gmsa-webhooks/serviceaccounts/gmsa-${fn}` }))
        .status === 200
    ) {
      identities[fn] = serviceAccountSubject("gmsa-webhooks", `gmsa-${fn}`);
    }
  }
  return identities;
}

/** SubjectAccessReviews (cluster-wide) for each required permission of each known identity. */
export async function checkIdentities(
  cluster: DoctorCluster,
  identities: Partial<Record<FunctionName, Identity>>,
): Promise<Finding[]> {
  const findings: Finding[] = [];
  for (const fn of FUNCTION_NAMES) {
    const check = `rbac/${fn}`;
    const identity = identities[fn];
    if (identity === undefined) {
      const message = `${fn}'s identity is unknown (no ServiceAccount of the chart or infra/deploy/rbac)`;
      findings.push(finding(check, "skip", message, `name it with --${fn}-identity (docs/doctor.md)`));
      continue;
    }
    const missing: string[] = [];
    for (const access of FUNCTION_NEEDS[fn]) {
      const body = {
        apiVersion: "authorization.k8s.io/v1",
        kind: "SubjectAccessReview",
        spec: { ...identity, resourceAttributes: access },
      };
      const response = await cluster.request({
        method: "POST",
        path: "/apis/authorization.k8s.io/v1/subjectaccessreviews",
        body,
        asCaller: true,
      });
      if (response.status !== 201 && response.status !== 200) {
        const message = `a SubjectAccessReview for ${identity.user} answered ${response.status}: ${statusMessage(response.body)}`;
        findings.push(finding(check, "fail", message, "doctor needs create on subjectaccessreviews (docs/doctor.md)"));
        continue;
      }
      if (readAccessVerdict(response.body)?.allowed !== true)
        missing.push(`${access.verb} ${access.resource}.${access.group}`);
    }
    if (missing.length > 0) {
      const message = `${fn}'s identity ${identity.user} may not ${missing.join(", ")} in every namespace: its RBAC is missing`;
      findings.push(
        finding(
          check,
          "fail",
          message,
          `apply infra/deploy/rbac/${fn}.yaml (or the chart's rbac) binding ClusterRole gmsa-webhooks:${fn} to it`,
        ),
      );
    } else {
      findings.push(
        finding(
          check,
          "pass",
          `${fn}'s identity ${identity.user} may ${FUNCTION_NEEDS[fn].map((a) => `${a.verb} ${a.resource}`).join(" and ")}`,
        ),
      );
    }
  }
  return findings;
}
