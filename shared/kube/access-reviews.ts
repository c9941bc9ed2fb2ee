/** May a pod's service account `use` a GMSACredentialSpec? A LocalSubjectAccessReview (docs/security.md, Access reviews). */
import type { V1LocalSubjectAccessReview } from "@kubernetes/client-node";
import * as z from "zod/mini";
import "../zod-english.ts";
import { CREDSPEC_GROUP, CREDSPEC_RESOURCE, CREDSPEC_USE_VERB } from "../credspec/resource.ts";
import { InvalidCredSpecNameError, InvalidReviewError, KubeApiError } from "../errors.ts";
import { isDns1123Label, isDns1123Subdomain } from "../policy/names.ts";
import type { AccessDecision, AccessQuery, CallOptions, UserAccessQuery } from "./gmsa-client.ts";
import type { KubeRequester } from "./request.ts";
import { errorFromAnswer } from "./status-errors.ts";

/** The LocalSubjectAccessReview asking whether the service account may `use` the credspec. */
export function buildLocalSubjectAccessReview({ namespace, serviceAccount, credSpecName }: AccessQuery): V1LocalSubjectAccessReview {
  const user = `system:serviceaccount:${namespace}:${serviceAccount}`;
  const groups = ["system:serviceaccounts", `system:serviceaccounts:${namespace}`, "system:authenticated"];
  return buildUseReview(namespace, { user, groups }, credSpecName);
}

/** The LocalSubjectAccessReview asking whether the requesting user, as the API server saw them, may `use` it. */
export function buildUserLocalSubjectAccessReview({ namespace, user, credSpecName }: UserAccessQuery): V1LocalSubjectAccessReview {
  return buildUseReview(
    namespace,
    {
      user: user.username,
      ...(user.uid === undefined ? {} : { uid: user.uid }),
      ...(user.groups === undefined ? {} : { groups: user.groups }),
      ...(user.extra === undefined ? {} : { extra: user.extra }),
    },
    credSpecName,
  );
}

type ReviewSubject = Pick<NonNullable<V1LocalSubjectAccessReview["spec"]>, "user" | "uid" | "groups" | "extra">;

function buildUseReview(namespace: string, subject: ReviewSubject, credSpecName: string): V1LocalSubjectAccessReview {
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

const reviewAnswer = z.object({
  status: z.object({
    allowed: z.boolean(),
    denied: z.optional(z.boolean()),
    reason: z.optional(z.string()),
    evaluationError: z.optional(z.string()),
  }),
});

/**
 * Creates the review in the pod's namespace and reads its verdict: allowed only if `allowed` and not `denied`.
 * @throws InvalidReviewError / InvalidCredSpecNameError before any call for names that cannot be Kubernetes
 *   names, KubeApiError / CredentialsError / DeadlineExceededError (500) when the API server cannot answer.
 */
export async function reviewCredSpecAccess(request: KubeRequester, query: AccessQuery, call: CallOptions): Promise<AccessDecision> {
  const { namespace, serviceAccount, credSpecName } = query;
  checkNames(namespace, credSpecName);
  if (!isDns1123Subdomain(serviceAccount)) {
    throw new InvalidReviewError(`service account name ${JSON.stringify(serviceAccount)} is not a DNS-1123 subdomain`);
  }
  const what = `reviewing whether service account "${namespace}/${serviceAccount}" may use GMSACredentialSpec "${credSpecName}"`;
  return postUseReview(request, buildLocalSubjectAccessReview(query), what, call);
}

/**
 * {@link reviewCredSpecAccess} for the requesting user.
 * @throws InvalidReviewError / InvalidCredSpecNameError before any call for a namespace or credspec name that
 *   cannot be a Kubernetes name, or an empty username; KubeApiError / CredentialsError / DeadlineExceededError (500).
 */
export async function reviewUserCredSpecAccess(request: KubeRequester, query: UserAccessQuery, call: CallOptions): Promise<AccessDecision> {
  const { namespace, user, credSpecName } = query;
  checkNames(namespace, credSpecName);
  if (user.username === "") throw new InvalidReviewError("the review's userInfo has no username");
  const what = `reviewing whether user ${JSON.stringify(user.username.slice(0, 253))} may use GMSACredentialSpec "${credSpecName}"`;
  return postUseReview(request, buildUserLocalSubjectAccessReview(query), what, call);
}

/** Names that go into the URL and the review must be Kubernetes names: refused before any call. */
function checkNames(namespace: string, credSpecName: string): void {
  if (!isDns1123Label(namespace)) throw new InvalidReviewError(`namespace ${JSON.stringify(namespace)} is not a DNS-1123 label`);
  if (!isDns1123Subdomain(credSpecName)) {
    throw new InvalidCredSpecNameError(`GMSACredentialSpec name ${JSON.stringify(credSpecName)} is not a DNS-1123 subdomain`);
  }
}

async function postUseReview(request: KubeRequester, review: V1LocalSubjectAccessReview, what: string, call: CallOptions): Promise<AccessDecision> {
  const namespace = review.metadata?.namespace ?? "";
  const answer = await request({
    method: "POST",
    path: `/apis/authorization.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/localsubjectaccessreviews`,
    resource: "localsubjectaccessreviews",
    body: review,
    what,
    signal: call.signal,
    tally: call.tally,
  });
  if (answer.status !== 200 && answer.status !== 201) throw errorFromAnswer(what, answer.status, answer.body);
  const parsed = reviewAnswer.safeParse(answer.body);
  if (!parsed.success) throw new KubeApiError(`${what}: the API server's answer has no status.allowed`);
  const { allowed, denied, reason, evaluationError } = parsed.data.status;
  return { allowed: allowed && denied !== true, reason: reason || evaluationError || "" };
}
