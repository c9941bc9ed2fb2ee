/**
 * End to end from the API server: server-side dry-run creates (`dryRun=All`: admission runs, nothing is stored) of a
 * probe pod whose service account may use a credspec (expand must inline it) and of one whose service account may not
 * (authorize must refuse it with 403), each timed. The API server's own webhook call errors (x509, connection) and
 * a function's refused API calls are named as what they are.
 */
import type { ServiceAccountRef } from "../../../shared/credspec/render.ts";
import { reviewCredSpecAccess } from "../../../shared/kube/access-reviews.ts";
import type { KubeRequester } from "../../../shared/kube/request.ts";
import type { AccessAnswer } from "../../../shared/policy/facts.ts";
import { CLI_CALL } from "../cluster.ts";
import { EXPECTED_WEBHOOKS, OPT_OUT_EXPRESSION } from "./expected-webhooks.ts";
import { finding, statusMessage, type DoctorCluster, type Finding } from "./findings.ts";
import type { FoundWebhook } from "./webhooks.ts";

/** What the probes use: given with flags, or found by {@link findProbeSubjects}. */
export interface ProbeSubjects {
  credspec: string;
  allowed: ServiceAccountRef;
  /** Undefined when no service account of `allowed`'s namespace is refused `use` (nothing to probe). */
  refused: ServiceAccountRef | undefined;
}

/** Access reviews spent looking for subjects, at most. */
const MAX_REVIEWS = 60;

/** May `sa` use `credspec`? The same LocalSubjectAccessReview authorize sends, as the kubeconfig's user. */
export function mayUse(cluster: DoctorCluster, sa: ServiceAccountRef, credspec: string): Promise<AccessAnswer> {
  const asCaller: KubeRequester = ({ method, path, body }) => cluster.request({ method, path, body, asCaller: true });
  return reviewCredSpecAccess(asCaller, { namespace: sa.namespace, serviceAccount: sa.name, credSpecName: credspec }, CLI_CALL);
}

interface Namespace {
  metadata: { name: string; labels?: Record<string, string> };
}

interface Binding {
  metadata: { namespace?: string };
  subjects?: { kind: string; name: string; namespace?: string }[];
}

/**
 * Finds a credspec and a service account that may use it among the ServiceAccount subjects of RoleBindings and
 * ClusterRoleBindings (checked with access reviews; only in `given.namespace` when set, never in a namespace opted
 * out with windows.k8s.io/disabled), and a service account of the
 * same namespace that may not (`default` first). `credspecs` are tried in order: well-formed ones first.
 */
export async function findProbeSubjects(
  cluster: DoctorCluster,
  credspecs: readonly string[],
  given: Partial<ProbeSubjects> & { namespace?: string },
): Promise<ProbeSubjects | Finding> {
  const check = "end-to-end/may-use";
  const names = given.credspec === undefined ? credspecs : [given.credspec];
  if (names.length === 0) return finding(check, "skip", "no GMSACredentialSpec exists to probe with");
  let candidates: ServiceAccountRef[];
  if (given.allowed !== undefined) {
    candidates = [given.allowed];
  } else {
    const [namespaces, ...lists] = await Promise.all(
      ["/api/v1/namespaces", "/apis/rbac.authorization.k8s.io/v1/rolebindings", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings"].map((path) =>
        cluster.request({ method: "GET", path }),
      ),
    );
    const bindings = lists.flatMap((r) => (r.status === 200 ? ((r.body as { items?: Binding[] }).items ?? []) : []));
    // Namespaces opted out of the webhooks (the shipped namespaceSelector) would show nothing.
    const optedOut = new Set(
      (namespaces!.status === 200 ? ((namespaces!.body as { items?: Namespace[] }).items ?? []) : [])
        .filter((n) => n.metadata.labels?.[OPT_OUT_EXPRESSION.key] === "true")
        .map((n) => n.metadata.name),
    );
    const seen = new Set<string>();
    candidates = bindings.flatMap((b) =>
      (b.subjects ?? []).flatMap((s) => {
        const namespace = s.namespace ?? b.metadata.namespace;
        if (s.kind !== "ServiceAccount" || namespace === undefined || seen.has(`${namespace}/${s.name}`)) return [];
        if ((given.namespace !== undefined && namespace !== given.namespace) || optedOut.has(namespace)) return [];
        seen.add(`${namespace}/${s.name}`);
        return [{ namespace, name: s.name }];
      }),
    );
  }
  let reviews = 0;
  for (const credspec of names) {
    for (const sa of candidates) {
      if (++reviews > MAX_REVIEWS) {
        const message = `no service account found that may use ${names.join(", ")} within ${MAX_REVIEWS} access reviews`;
        return finding(check, "skip", message, "name one with --service-account");
      }
      const answer = await mayUse(cluster, sa, credspec);
      if (!answer.allowed && given.allowed !== undefined && names.length === 1) {
        const message = `service account ${sa.namespace}/${sa.name} may not use ${credspec}${answer.reason === "" ? "" : ` (${answer.reason})`}`;
        return finding(check, "fail", message, `grant it "use" of ${credspec}: npx gmsa-webhooks credspec --help shows the RoleBinding`);
      }
      if (!answer.allowed) continue;
      return { credspec, allowed: sa, refused: given.refused ?? (await findRefused(cluster, sa.namespace, credspec)) };
    }
  }
  const what = names.length === 1 ? names[0] : "any GMSACredentialSpec";
  const who = given.allowed === undefined ? "service account bound by a RoleBinding or ClusterRoleBinding" : "given service account";
  return finding(check, given.allowed === undefined ? "warn" : "fail", `no ${who} may use ${what}: nothing to probe with`, "name one with --service-account");
}

async function findRefused(cluster: DoctorCluster, namespace: string, credspec: string): Promise<ServiceAccountRef | undefined> {
  const response = await cluster.request({ method: "GET", path: `/api/v1/namespaces/${namespace}/serviceaccounts` });
  const names = ((response.body as { items?: { metadata: { name: string } }[] }).items ?? []).map((sa) => sa.metadata.name);
  // The API server's ServiceAccount admission refuses a pod naming an account that does not exist, before any webhook.
  const ordered = [...names.filter((n) => n === "default"), ...names.filter((n) => n !== "default")].slice(0, 10);
  for (const name of ordered) {
    if (!(await mayUse(cluster, { namespace, name }, credspec)).allowed) return { namespace, name };
  }
  return undefined;
}

/** The probe pod: a Windows pod naming the credspec, for a dry run only. */
export function buildProbePod(sa: ServiceAccountRef, credspec: string): object {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { generateName: "gmsa-doctor-probe-", namespace: sa.namespace, labels: { "app.kubernetes.io/name": "gmsa-doctor-probe" } },
    spec: {
      serviceAccountName: sa.name,
      nodeSelector: { "kubernetes.io/os": "windows" },
      securityContext: { windowsOptions: { gmsaCredentialSpecName: credspec } },
      containers: [{ name: "probe", image: "mcr.microsoft.com/windows/nanoserver:ltsc2022" }],
    },
  };
}

/** Names the fault behind an API server's "failed calling webhook" message, or undefined for any other message. */
export function explainWebhookCallError(message: string, found: readonly FoundWebhook[]): string | undefined {
  const hook = found.find((f) => message.includes(`"${EXPECTED_WEBHOOKS[f.fn].webhook.name}"`));
  if (hook === undefined) return undefined;
  // The function's own API calls fail for its credential (docs/security.md, Status codes): none, refused, or another's.
  if (/denied the request: .*(API server answered 40[13]|could not authenticate to the API server)/.test(message)) {
    const denial = message.slice(message.indexOf("denied the request: ") + 20).slice(0, 300);
    return `${hook.fn} has no working credential for the API server, or the API server refuses it (${denial})`;
  }
  if (!message.includes("failed calling webhook")) return undefined;
  const served = hook.webhook.clientConfig?.service === undefined ? "its URL" : "the Service";
  const x509 = /x509: (.*)$/m.exec(message)?.[1];
  if (x509 !== undefined) {
    if (/expired/.test(x509)) return `the certificate ${served} of ${hook.fn} serves, or the CA in the caBundle of ${hook.configName}, has expired (x509: ${x509})`;
    if (/valid for|doesn't contain/.test(x509)) {
      return `the certificate ${served} of ${hook.fn} serves does not name the host the API server calls (x509: ${x509})`;
    }
    return `the caBundle of ${hook.configName} does not verify the certificate ${served} of ${hook.fn} serves (x509: ${x509})`;
  }
  return `the API server could not call ${hook.fn} (${hook.configName}): ${message.slice(message.indexOf("failed calling webhook")).slice(0, 300)}`;
}

async function dryRunCreate(cluster: DoctorCluster, sa: ServiceAccountRef, credspec: string) {
  const started = performance.now();
  const path = `/api/v1/namespaces/${sa.namespace}/pods`;
  const response = await cluster.request({ method: "POST", path, query: { dryRun: "All" }, body: buildProbePod(sa, credspec) });
  return { response, ms: Math.round(performance.now() - started) };
}

/** The two dry-run creates, each as one finding with the time it took. */
export async function runProbes(cluster: DoctorCluster, subjects: ProbeSubjects, found: readonly FoundWebhook[]): Promise<Finding[]> {
  const { credspec, allowed, refused } = subjects;
  const findings: Finding[] = [];
  const describe = (sa: ServiceAccountRef) => `a dry-run pod of service account ${sa.namespace}/${sa.name} naming ${credspec}`;
  const seeAbove = "see the checks above and the functions' logs";
  const may = await dryRunCreate(cluster, allowed, credspec);
  type ProbePod = { spec?: { securityContext?: { windowsOptions?: { gmsaCredentialSpec?: string } } } };
  const inlined = (may.response.body as ProbePod).spec?.securityContext?.windowsOptions?.gmsaCredentialSpec;
  const mayMessage = statusMessage(may.response.body);
  if (may.response.status === 201 && inlined !== undefined) {
    findings.push({ ...finding("end-to-end/may-use", "pass", `${describe(allowed)} came back with the contents inlined in ${may.ms} ms`), ms: may.ms });
  } else {
    const why =
      may.response.status === 201
        ? "was admitted without the contents inlined: expand did not run"
        : `was refused (${may.response.status}): ${explainWebhookCallError(mayMessage, found) ?? mayMessage}`;
    findings.push({ ...finding("end-to-end/may-use", "fail", `${describe(allowed)} ${why}`, seeAbove), ms: may.ms });
  }
  if (refused === undefined) {
    findings.push(finding("end-to-end/may-not-use", "skip", `every service account of namespace ${allowed.namespace} may use ${credspec}: no refusal to probe`));
    return findings;
  }
  const mayNot = await dryRunCreate(cluster, refused, credspec);
  const notMessage = statusMessage(mayNot.response.body);
  const byAuthorize = notMessage.includes(EXPECTED_WEBHOOKS.authorize.webhook.name);
  if (mayNot.response.status === 403 && byAuthorize) {
    findings.push({ ...finding("end-to-end/may-not-use", "pass", `${describe(refused)} was refused with 403 by authorize in ${mayNot.ms} ms`), ms: mayNot.ms });
  } else {
    const why =
      mayNot.response.status === 201
        ? "was admitted: authorize did not refuse it"
        : `was refused with ${mayNot.response.status} instead of authorize's 403: ${explainWebhookCallError(notMessage, found) ?? notMessage}`;
    findings.push({ ...finding("end-to-end/may-not-use", "fail", `${describe(refused)} ${why}`, seeAbove), ms: mayNot.ms });
  }
  return findings;
}
