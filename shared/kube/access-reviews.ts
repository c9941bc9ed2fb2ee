/** May a pod's service account, or the requesting user, `use` a GMSACredentialSpec? (docs/security.md, Access reviews) */
import type { V1LocalSubjectAccessReview } from "@kubernetes/client-node";
import * as z from "zod/mini";
import "../zod-english.ts";
import { CREDSPEC_GROUP, CREDSPEC_RESOURCE, CREDSPEC_USE_VERB } from "../credspec/resource.ts";
import { AdmissionError } from "../errors.ts";
import { isDns1123Label, isDns1123Subdomain } from "../policy/checks.ts";
import type { AccessAnswer, Subject } from "../policy/facts.ts";
import { errorFromAnswer, type CallOptions, type KubeRequester } from "./request.ts";

/** May the pod's `serviceAccount` (never empty: "" is already "default") or the requesting `user` in `namespace` `use` the GMSACredentialSpec? */
export type AccessQuery = Subject & { credSpecName: string };

/** A service account as the API server authenticates it: its user name and the groups every service account gets. */
export function serviceAccountSubject(namespace: string, name: string): { user: string; groups: string[] } {
  return {
    user: `system:serviceaccount:${namespace}:${name}`,
    groups: ["system:serviceaccounts", `system:serviceaccounts:${namespace}`, "system:authenticated"],
  };
}

/**
 * The LocalSubjectAccessReview asking whether the service account, or the requesting user as the API server saw
 * them (user, uid, groups and extra verbatim), may `use` the credspec.
 */
export function buildLocalSubjectAccessReview(query: AccessQuery): V1LocalSubjectAccessReview {
  const { namespace, credSpecName } = query;
  let subject: Pick<NonNullable<V1LocalSubjectAccessReview["spec"]>, "user" | "uid" | "groups" | "extra">;
  if ("user" in query) {
    const { username, ...rest } = query.user;
    subject = { user: username, ...rest };
  } else {
    subject = serviceAccountSubject(namespace, query.serviceAccount);
  }
  return {
    apiVersion: "authorization.k8s.io/v1",
    kind: "LocalSubjectAccessReview",
    metadata: { namespace },
    spec: {
      ...subject,
      resourceAttributes: {
        namespace,
        verb: CREDSPEC_USE_VERB,
        group: CREDSPEC_GROUP,
        resource: CREDSPEC_RESOURCE,
        name: credSpecName,
      },
    },
  };
}

/** The answer of any access review (Local-, Self-, SubjectAccessReview). */
export const accessReviewAnswer = z.object({
  status: z.object({
    allowed: z.boolean(),
    denied: z.optional(z.boolean()),
    reason: z.optional(z.string()),
    evaluationError: z.optional(z.string()),
  }),
});

/** An access review's verdict: allowed only if `allowed` and not `denied`; undefined when it has no status.allowed. */
export function readAccessVerdict(body: unknown): AccessAnswer | undefined {
  const parsed = accessReviewAnswer.safeParse(body);
  if (!parsed.success) return undefined;
  const { allowed, denied, reason, evaluationError } = parsed.data.status;
  return { allowed: allowed && denied !== true, reason: reason || evaluationError || "" };
}

/** Names the review in errors and logs: whose use of which credspec (a username cut to the length of a Kubernetes name). */
export function describeAccessReview(query: AccessQuery): string {
  const who =
    "user" in query
      ? `user ${JSON.stringify(query.user.username.slice(0, 253))}`
      : `service account "${query.namespace}/${query.serviceAccount}"`;
  return `reviewing whether ${who} may use GMSACredentialSpec "${query.credSpecName}"`;
}

/**
 * Creates the review in the pod's namespace and reads its verdict.
 * @throws AdmissionError ERR_INVALID_REVIEW / ERR_INVALID_CREDSPEC_NAME before any call for names that cannot be
 *   Kubernetes names (they go into the URL and the review); ERR_KUBE_API / ERR_CREDENTIALS / ERR_DEADLINE_EXCEEDED
 *   (500) when the API server cannot answer. A requester always has a username: readReview keeps none without one.
 */
export async function reviewCredSpecAccess(
  request: KubeRequester,
  query: AccessQuery,
  call: CallOptions,
): Promise<AccessAnswer> {
  const { namespace } = query;
  if (!isDns1123Label(namespace))
    throw new AdmissionError(`namespace ${JSON.stringify(namespace)} is not a DNS-1123 label`, {
      code: "ERR_INVALID_REVIEW",
    });
  checkCredSpecName(query.credSpecName);
  if ("serviceAccount" in query && !isDns1123Subdomain(query.serviceAccount)) {
    throw new AdmissionError(
      `service account name ${JSON.stringify(query.serviceAccount)} is not a DNS-1123 subdomain`,
      { code: "ERR_INVALID_REVIEW" },
    );
  }
  const what = describeAccessReview(query);
  const answer = await request({
    method: "POST",
    path: `/apis/authorization.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/localsubjectaccessreviews`,
    resource: "localsubjectaccessreviews",
    body: buildLocalSubjectAccessReview(query),
    what,
    ...call,
  });
  if (answer.status !== 200 && answer.status !== 201) throw errorFromAnswer(what, answer.status, answer.body);
  const verdict = readAccessVerdict(answer.body);
  if (verdict === undefined)
    throw new AdmissionError(`${what}: the API server's answer has no status.allowed`, { code: "ERR_KUBE_API" });
  return verdict;
}

/** @throws AdmissionError ERR_INVALID_CREDSPEC_NAME for a name no GMSACredentialSpec can have (it goes into a URL or a review). */
export function checkCredSpecName(name: string): void {
  if (!isDns1123Subdomain(name))
    throw new AdmissionError(`GMSACredentialSpec name ${JSON.stringify(name)} is not a DNS-1123 subdomain`, {
      code: "ERR_INVALID_CREDSPEC_NAME",
    });
}
