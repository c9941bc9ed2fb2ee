/** Where GMSA pods run: Windows nodes present, GMSA pods pinned to them, and their service accounts still allowed `use`. */
import type { V1Node, V1NodeSelectorRequirement, V1Pod } from "@kubernetes/client-node";
import { isDeepStrictEqual } from "node:util";
import { PodSchema } from "../../shared/admission/review.ts";
import { readPodGmsa } from "../../shared/policy/pod-gmsa.ts";
import { finding, type DoctorCluster, type Finding } from "./findings.ts";
import { mayUse } from "./probe.ts";
import type { PodTemplate } from "./templates.ts";

const OS_LABEL = "kubernetes.io/os";
const MAX_NAMED = 10;

/** AKS nodes carry kubernetes.azure.com labels and azure:// provider ids. */
export function isAksCluster(nodes: readonly V1Node[]): boolean {
  return nodes.some(
    (n) =>
      n.spec?.providerID?.startsWith("azure://") === true ||
      Object.keys(n.metadata?.labels ?? {}).some((k) => k.startsWith("kubernetes.azure.com/")),
  );
}

/** Windows nodes present, or a warning. */
export function checkWindowsNodes(nodes: readonly V1Node[]): Finding {
  const windows = nodes.filter((n) => n.metadata?.labels?.[OS_LABEL] === "windows").length;
  const count = nodes.length;
  if (windows > 0) return finding("nodes", "pass", `${windows} of ${count} nodes run Windows`);
  const none =
    count === 0
      ? "the cluster has no node"
      : count === 1
        ? "its only node does not run Windows"
        : `none of the ${count} nodes runs Windows`;
  return finding("nodes", "warn", `${none}: GMSA pods cannot start`, "add a Windows node pool");
}

/** A pod as listed: it has a name and a namespace. */
export type PodObject = V1Pod & { metadata: { name: string; namespace: string } };

/** True when the pod can only be scheduled on Windows nodes: a nodeSelector, or every required term, says so. */
function isPinnedToWindows(pod: PodObject): boolean {
  const terms =
    pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  const windowsOnly = (e: V1NodeSelectorRequirement) =>
    e.key === OS_LABEL && e.operator === "In" && isDeepStrictEqual(e.values, ["windows"]);
  return (
    pod.spec?.nodeSelector?.[OS_LABEL] === "windows" ||
    (terms.length > 0 && terms.every((t) => t.matchExpressions?.some(windowsOnly)))
  );
}

const label = (pod: PodObject) => `${pod.metadata.namespace}/${pod.metadata.name}`;
const listed = (names: string[]) =>
  names.slice(0, MAX_NAMED).join(", ") + (names.length > MAX_NAMED ? ` and ${names.length - MAX_NAMED} more` : "");

/** What the pod checks know of the cluster: every credspec's name (when it could be read), the namespaces the webhooks exempt, the workloads' pod templates. */
export interface PodCheckContext {
  existing?: ReadonlySet<string> | undefined;
  exempt?: ReadonlySet<string> | undefined;
  templates?: readonly PodTemplate[] | undefined;
}

/** The credspec names a pod (or pod template) holds, read as the webhooks read it: one that does not parse holds none they would see. */
function credspecNames(pod: unknown): string[] {
  const parsed = PodSchema.safeParse(pod);
  return [...new Set(parsed.success ? readPodGmsa(parsed.data).refs.flatMap((r) => r.name ?? []) : [])];
}

/**
 * The pod checks: Linux placement (pure), every credspec a pod names exists, and each service account's `use` of
 * the ones that do (access reviews). Pods of exempt namespaces are left out: the webhooks never review them.
 */
export async function checkGmsaPods(
  cluster: DoctorCluster,
  pods: readonly PodObject[],
  { existing, exempt, templates = [] }: PodCheckContext = {},
): Promise<Finding[]> {
  const reviewed = pods.filter((pod) => !exempt?.has(pod.metadata.namespace));
  const gmsa = reviewed.flatMap((pod) => {
    const names = credspecNames(pod);
    return names.length > 0 ? [{ pod, names }] : [];
  });
  const findings: Finding[] = [];
  const loose = gmsa.filter((p) => !isPinnedToWindows(p.pod)).map((p) => label(p.pod));
  if (loose.length > 0) {
    const message = `${loose.length} GMSA pods could land on a Linux node (no ${OS_LABEL}: windows nodeSelector or required affinity): ${listed(loose)}`;
    findings.push(
      finding("pods/placement", "warn", message, `add nodeSelector ${OS_LABEL}: windows to their templates`),
    );
  }
  const absent = (name: string) => existing !== undefined && !existing.has(name);
  // A template's next pods are refused as a running pod's replacements are.
  const templated = templates
    .filter((t) => !exempt?.has(t.namespace))
    .map((t) => ({ what: t.label, names: credspecNames(t.pod) }));
  const missing = [...gmsa.map(({ pod, names }) => ({ what: `pod ${label(pod)}`, names })), ...templated].flatMap(
    ({ what, names }) => names.filter(absent).map((name) => `${what} (credspec ${name})`),
  );
  if (missing.length > 0) {
    const message = `${missing.length} running GMSA pods or pod templates name a GMSACredentialSpec that does not exist, so their new pods are refused (422)`;
    const fix =
      "create the credspec again (npx gmsa-webhooks credspec --help), or change the pods; when moving from windows-gmsa, docs/migration.md";
    findings.push(finding("pods/credspecs", "fail", `${message}: ${listed(missing)}`, fix));
  }
  const refused: string[] = [];
  // One access review per service account and credspec, however many pods share them.
  const answers = new Map<string, Promise<boolean>>();
  for (const { pod, names } of gmsa) {
    const sa = { namespace: pod.metadata.namespace, name: pod.spec?.serviceAccountName ?? "default" };
    // A missing credspec is named above: whether its name may be used says nothing.
    for (const credspec of names.filter((name) => existing === undefined || existing.has(name))) {
      const key = `${sa.namespace}/${sa.name}/${credspec}`;
      if (!answers.has(key))
        answers.set(
          key,
          mayUse(cluster, sa, credspec).then((a) => a.allowed),
        );
      if (!(await answers.get(key)!))
        refused.push(`pod ${label(pod)} (service account ${sa.name}, credspec ${credspec})`);
    }
  }
  if (refused.length > 0) {
    const message = `the service account of ${refused.length} running GMSA pods may no longer use its credspec, so their replacements are refused (403)`;
    const fix = `grant "use" again (a RoleBinding to a ClusterRole with verb use on the credspec), or change the pods`;
    findings.push(finding("pods/use", "fail", `${message}: ${listed(refused)}`, fix));
  }
  if (findings.length > 0) return findings;
  const message =
    gmsa.length === 0
      ? "no GMSA pod runs yet"
      : `${gmsa.length} GMSA pods: each pinned to Windows, each credspec present, each service account may use its credspecs`;
  return [finding("pods", "pass", message)];
}
