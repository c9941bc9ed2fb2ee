/**
 * The example `npm run dev` prints and `--check` runs: create infra/deploy/samples/pod.yaml (service account gmsa-app,
 * credspec webapp01) and compare the credspec the webhooks inlined with the stored one.
 */
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { credSpecPath } from "../../shared/kube/client.ts";
import { loadManifest } from "./apply.ts";
import { adminEndpoint, type LocalClusterInfo } from "./cluster.ts";
import { kubeRequest, kubeRequestOk } from "./kube-request.ts";

const SAMPLE_POD = fileURLToPath(new URL("../deploy/samples/pod.yaml", import.meta.url));
const JSONPATH = "{.spec.securityContext.windowsOptions.gmsaCredentialSpec}";

/** The one command printed: create the sample pod, show its inlined credspec. */
export function exampleCommand(cluster: LocalClusterInfo): string {
  const podFile = relative(process.cwd(), SAMPLE_POD);
  return `KUBECONFIG=${cluster.adminKubeconfig} kubectl create -f ${podFile} -o jsonpath='${JSONPATH}'`;
}

/** What the example created, and whether the credspec was inlined. */
export interface ExampleResult {
  ok: boolean;
  podName: string;
  contents: string | undefined;
  detail: string;
}

/** What {@link exampleCommand} does, through the API: creates the sample pod, compares its contents with webapp01. */
export async function runExample(cluster: LocalClusterInfo): Promise<ExampleResult> {
  const [pod] = await loadManifest("samples/pod.yaml");
  const namespace = pod?.metadata.namespace ?? "default";
  const created = await kubeRequest<{
    metadata?: { name?: string };
    spec?: { securityContext?: { windowsOptions?: { gmsaCredentialSpecName?: string; gmsaCredentialSpec?: string } } };
    message?: string;
  }>(adminEndpoint(cluster), `/api/v1/namespaces/${namespace}/pods`, { method: "POST", body: pod });
  const podName = created.body.metadata?.name ?? "(not created)";
  if (created.status !== 201)
    return { ok: false, podName, contents: undefined, detail: `HTTP ${created.status}: ${created.body.message ?? ""}` };
  const options = created.body.spec?.securityContext?.windowsOptions;
  const name = options?.gmsaCredentialSpecName ?? "";
  const stored = await kubeRequestOk<{ credspec: unknown }>(adminEndpoint(cluster), credSpecPath(name));
  const contents = options?.gmsaCredentialSpec;
  const ok = contents !== undefined && isDeepStrictEqual(JSON.parse(contents), stored.credspec);
  return {
    ok,
    podName,
    contents,
    detail: ok ? `equals GMSACredentialSpec ${name}` : `does not equal GMSACredentialSpec ${name}`,
  };
}
