/** Reading a GMSACredentialSpec's `credspec` (the CRD from kubernetes-sigs/windows-gmsa, `windows.k8s.io/v1`). */
import { CREDSPEC_API_VERSION, CREDSPEC_RESOURCE } from "../credspec/resource.ts";
import { CredSpecNotFoundError, CredSpecWithoutContentsError, InvalidCredSpecNameError, KubeApiError } from "../errors.ts";
import { isDns1123Subdomain } from "../policy/names.ts";
import type { CallOptions } from "./client.ts";
import { errorFromAnswer, readStatus, type KubeRequester } from "./request.ts";

/** The path of one cluster-scoped GMSACredentialSpec. */
export function credSpecPath(name: string): string {
  return `/apis/${CREDSPEC_API_VERSION}/${CREDSPEC_RESOURCE}/${encodeURIComponent(name)}`;
}

/**
 * GETs the GMSACredentialSpec `name` and returns its `credspec` field as parsed JSON.
 * @throws InvalidCredSpecNameError before any call for a name that is not a DNS-1123 subdomain,
 *   CredSpecNotFoundError (422), CredSpecWithoutContentsError (422), KubeApiError / CredentialsError /
 *   DeadlineExceededError (500).
 */
export async function readCredSpecContents(request: KubeRequester, name: string, call: CallOptions): Promise<NonNullable<unknown>> {
  const what = `reading GMSACredentialSpec ${JSON.stringify(name)}`;
  if (!isDns1123Subdomain(name)) {
    throw new InvalidCredSpecNameError(`GMSACredentialSpec name ${JSON.stringify(name)} is not a DNS-1123 subdomain`);
  }
  const answer = await request({ method: "GET", path: credSpecPath(name), resource: CREDSPEC_RESOURCE, what, ...call });
  if (answer.status === 404) {
    const status = readStatus(answer.body);
    // A NotFound Status without details.name is about the path, not the object: the CRD is not served.
    if (status?.reason === "NotFound" && status.details?.name === undefined) {
      throw new KubeApiError(`${what}: the API server does not serve ${CREDSPEC_API_VERSION} ${CREDSPEC_RESOURCE} (is the CRD installed?)`);
    }
    throw new CredSpecNotFoundError(`GMSACredentialSpec ${JSON.stringify(name)} does not exist`);
  }
  if (answer.status !== 200) throw errorFromAnswer(what, answer.status, answer.body);
  const contents = (answer.body as { credspec?: unknown } | null)?.credspec;
  if (contents === undefined || contents === null) {
    throw new CredSpecWithoutContentsError(`GMSACredentialSpec ${JSON.stringify(name)} has no credspec field`);
  }
  return contents;
}
