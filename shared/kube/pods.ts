/** The pod an exec or attach goes into: a CONNECT's admission request names it but does not carry it. */
import { PodSchema, type Pod } from "../admission/review.ts";
import { isDns1123Label, isDns1123Subdomain } from "../policy/checks.ts";
import { AdmissionError } from "../errors.ts";
import { errorFromAnswer, type CallOptions, type KubeRequester } from "./request.ts";

/**
 * Reads pod `name` in `namespace` with the function's own identity (`get` on `pods`, docs/security.md). Never cached:
 * a pod deleted and created again under its name may name other credspecs.
 * @throws AdmissionError ERR_INVALID_REVIEW before any call for names that cannot be Kubernetes names; ERR_KUBE_API
 *   for any answer but 200 with a pod (a missing pod too: fail closed), ERR_CREDENTIALS, ERR_DEADLINE_EXCEEDED (500).
 */
export async function readPod(
  request: KubeRequester,
  namespace: string,
  name: string,
  call: CallOptions,
): Promise<Pod> {
  if (!isDns1123Label(namespace))
    throw new AdmissionError(`namespace ${JSON.stringify(namespace.slice(0, 80))} is not a DNS-1123 label`, {
      code: "ERR_INVALID_REVIEW",
    });
  if (!isDns1123Subdomain(name))
    throw new AdmissionError(`pod name ${JSON.stringify(name.slice(0, 80))} is not a DNS-1123 subdomain`, {
      code: "ERR_INVALID_REVIEW",
    });
  const what = `reading pod "${namespace}/${name}"`;
  const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(name)}`;
  const answer = await request({ method: "GET", path, resource: "pods", what, ...call });
  if (answer.status !== 200) throw errorFromAnswer(what, answer.status, answer.body);
  const pod = PodSchema.safeParse(answer.body);
  if (!pod.success) throw new AdmissionError(`${what}: the API server's answer is not a pod`, { code: "ERR_KUBE_API" });
  return pod.data;
}
