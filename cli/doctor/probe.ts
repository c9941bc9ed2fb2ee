/**
 * End to end from the API server: timed dry-run creates (`dryRun=All`: admission runs, nothing is stored) of a pod
 * whose service account may use a credspec (expand must inline it) and of one whose may not (authorize must refuse it).
 */
import type { V1Pod, V1RoleBinding, V1ServiceAccount } from "@kubernetes/client-node";
import type { ServiceAccountRef } from "../credspec/render.ts";
import { reviewCredSpecAccess } from "../../shared/kube/access-reviews.ts";
import { isDns1123Label, isDns1123Subdomain } from "../../shared/policy/checks.ts";
import { CLI_CALL, type ClusterAnswer } from "../cluster.ts";
import {
  finding,
  listOrNone,
  statusMessage,
  type DoctorCluster,
  type DoctorOptions,
  type Finding,
} from "./findings.ts";
import { EXPECTED_WEBHOOKS, type FoundWebhook } from "./webhooks.ts";

/** What the probes use; `refused` is undefined when every service account of `allowed`'s namespace may use `credspec`. */
type ProbeSubjects = { credspec: string; allowed: ServiceAccountRef; refused: ServiceAccountRef | undefined };

/** Access reviews spent looking for subjects, at most. */
const MAX_REVIEWS = 60;

/** May `sa` use `credspec`? The same LocalSubjectAccessReview authorize sends, as the kubeconfig's user. */
export function mayUse(cluster: DoctorCluster, sa: ServiceAccountRef, credspec: string) {
  const query = { namespace: sa.namespace, serviceAccount: sa.name, credSpecName: credspec };
  return reviewCredSpecAccess(
    ({ method, path, body }) => cluster.request({ method, path, body, asCaller: true }),
    query,
    CLI_CALL,
  );
}

/**
 * The ServiceAccount subjects of RoleBindings and ClusterRoleBindings, in `only` when set, outside `exempt` (the
 * webhooks never see those namespaces). RBAC does not check a subject's namespace, and nothing that names no possible
 * service account can be probed, so such subjects are passed over rather than asked about (the review would throw).
 */
async function findBoundServiceAccounts(
  cluster: DoctorCluster,
  only: string | undefined,
  exempt: ReadonlySet<string>,
): Promise<ServiceAccountRef[]> {
  const bindings = await Promise.all([
    listOrNone<V1RoleBinding>(cluster, "/apis/rbac.authorization.k8s.io/v1/rolebindings"),
    listOrNone<V1RoleBinding>(cluster, "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings"),
  ]);
  const found = new Map<string, ServiceAccountRef>();
  for (const binding of bindings.flat()) {
    for (const { kind, name, namespace = binding.metadata?.namespace } of binding.subjects ?? []) {
      if (
        kind !== "ServiceAccount" ||
        namespace === undefined ||
        exempt.has(namespace) ||
        (only !== undefined && namespace !== only)
      )
        continue;
      if (!isDns1123Label(namespace) || !isDns1123Subdomain(name)) continue;
      found.set(`${namespace}/${name}`, { namespace, name });
    }
  }
  return [...found.values()];
}

/** The probes' credspec and service account: as given, else the first credspec a bound one may use; and one of its namespace that may not. */
export async function findProbeSubjects(
  cluster: DoctorCluster,
  credspecs: readonly string[],
  given: DoctorOptions,
  exempt: ReadonlySet<string> = new Set(),
): Promise<ProbeSubjects | Finding> {
  const check = "end-to-end/may-use";
  const names = given.credspec === undefined ? credspecs : [given.credspec];
  if (names.length === 0) return finding(check, "skip", "no GMSACredentialSpec exists to probe with");
  const candidates =
    given.serviceAccount === undefined
      ? await findBoundServiceAccounts(cluster, given.namespace, exempt)
      : [given.serviceAccount];
  const fix = "name one with --service-account";
  let reviews = 0;
  for (const credspec of names) {
    for (const sa of candidates) {
      if (++reviews > MAX_REVIEWS) {
        // A warning, not a skip: the probes apply here, and no end-to-end test ran (docs/doctor.md).
        return finding(
          check,
          "warn",
          `no service account found that may use ${names.join(", ")} within ${MAX_REVIEWS} access reviews`,
          fix,
        );
      }
      const { allowed, reason } = await mayUse(cluster, sa, credspec);
      if (allowed) return { credspec, allowed: sa, refused: await findRefused(cluster, sa.namespace, credspec) };
      if (given.serviceAccount !== undefined && names.length === 1) {
        const message = `service account ${sa.namespace}/${sa.name} may not use ${credspec}${reason === "" ? "" : ` (${reason})`}`;
        return finding(
          check,
          "fail",
          message,
          `grant it "use" of ${credspec}: npx gmsa-webhooks credspec --help shows the RoleBinding`,
        );
      }
    }
  }
  const what = names.length === 1 ? names[0] : "any GMSACredentialSpec";
  const who =
    given.serviceAccount === undefined
      ? "service account bound by a RoleBinding or ClusterRoleBinding"
      : "given service account";
  return finding(
    check,
    given.serviceAccount === undefined ? "warn" : "fail",
    `no ${who} may use ${what}: nothing to probe with`,
    fix,
  );
}

async function findRefused(
  cluster: DoctorCluster,
  namespace: string,
  credspec: string,
): Promise<ServiceAccountRef | undefined> {
  const names = (
    await listOrNone<V1ServiceAccount>(cluster, `/api/v1/namespaces/${namespace}/serviceaccounts`)
  ).flatMap((sa) => sa.metadata?.name ?? []);
  // The API server's ServiceAccount admission refuses a pod naming an account that does not exist, before any webhook.
  for (const name of [...names.filter((n) => n === "default"), ...names.filter((n) => n !== "default")].slice(0, 10)) {
    if (!(await mayUse(cluster, { namespace, name }, credspec)).allowed) return { namespace, name };
  }
  return undefined;
}

/** A fault named from the API server's words, and its fix when it has one of its own. */
export type NamedFault = { message: string; fix?: string };

/** The fix of a caller credential the functions refuse: the two sides of docs/operations.md's rotation disagree. */
const CALLER_FIX =
  "make the credential the API server sends (the admission kubeconfig's token, or the path in the webhook URL) one the functions accept " +
  "(CALLER_AUTH_TOKENS or CALLER_AUTH_PATH_SECRET; the chart's callerAuth values, then `helm upgrade --force-conflicts` on Helm 4): " +
  "docs/operations.md, Rotating the caller credential";

/** Names the fault behind an API server's "failed calling webhook" message, or undefined for any other message. */
export function explainWebhookCallError(message: string, found: readonly FoundWebhook[]): NamedFault | undefined {
  const hook = found.find((f) => message.includes(`"${EXPECTED_WEBHOOKS[f.fn].webhook.name}"`));
  if (hook === undefined) return undefined;
  // The function's own API calls fail for its credential (docs/security.md, Status codes): none, refused, or another's.
  if (/denied the request: .*(API server answered 40[13]|could not authenticate to the API server)/.test(message)) {
    const denial = message.slice(message.indexOf("denied the request: ") + 20).slice(0, 300);
    return {
      message: `${hook.fn} has no working credential for the API server, or the API server refuses it (${denial})`,
    };
  }
  const failed = message.indexOf("failed calling webhook");
  if (failed === -1) return undefined;
  // client-go's words for a 401 (the function refused the API server as a caller), as after a one-sided rotation.
  if (/provide credentials|\bUnauthorized\b|\b401\b/.test(message.slice(failed))) {
    return {
      message: `${hook.fn} refuses the caller credential the API server sends (401): the caller secret was rotated on one side only`,
      fix: CALLER_FIX,
    };
  }
  const x509 = /x509: (.*)$/m.exec(message)?.[1];
  if (x509 === undefined)
    return {
      message: `the API server could not call ${hook.fn} (${hook.configName}): ${message.slice(failed, failed + 300)}`,
    };
  const cert = `the certificate ${hook.webhook.clientConfig?.service === undefined ? "its URL" : "the Service"} of ${hook.fn} serves`;
  if (/expired/.test(x509))
    return { message: `${cert}, or the CA in the caBundle of ${hook.configName}, has expired (x509: ${x509})` };
  if (/valid for|doesn't contain/.test(x509))
    return { message: `${cert} does not name the host the API server calls (x509: ${x509})` };
  return { message: `the caBundle of ${hook.configName} does not verify ${cert} (x509: ${x509})` };
}

/** What is wrong with a probe's answer (given the message of its Status), or undefined when it is as expected. */
type Fault = (answer: ClusterAnswer, message: string) => NamedFault | undefined;

/** One dry-run create of a Windows pod of `sa` naming `credspec`, timed and judged by `fault`. */
async function probe(
  cluster: DoctorCluster,
  check: string,
  sa: ServiceAccountRef,
  credspec: string,
  expected: string,
  fault: Fault,
): Promise<Finding> {
  const pod: V1Pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      generateName: "gmsa-doctor-probe-",
      namespace: sa.namespace,
      labels: { "app.kubernetes.io/name": "gmsa-doctor-probe" },
    },
    // A Windows pod that PodSecurity `restricted` admits (it skips the Linux-only controls for `os.name: windows`)
    // and that a ResourceQuota on cpu and memory does, so that the probe meets the webhooks, not those.
    spec: {
      os: { name: "windows" },
      serviceAccountName: sa.name,
      nodeSelector: { "kubernetes.io/os": "windows" },
      securityContext: { runAsNonRoot: true, windowsOptions: { gmsaCredentialSpecName: credspec } },
      containers: [
        {
          name: "probe",
          image: "mcr.microsoft.com/windows/nanoserver:ltsc2022",
          resources: { requests: { cpu: "10m", memory: "32Mi" }, limits: { cpu: "500m", memory: "256Mi" } },
        },
      ],
    },
  };
  const started = performance.now();
  const answer = await cluster.request({
    method: "POST",
    path: `/api/v1/namespaces/${sa.namespace}/pods`,
    query: { dryRun: "All" },
    body: pod,
  });
  const ms = Math.round(performance.now() - started);
  const what = `a dry-run pod of service account ${sa.namespace}/${sa.name} naming ${credspec}`;
  const why = fault(answer, statusMessage(answer.body));
  if (why === undefined) return { ...finding(check, "pass", `${what} ${expected} in ${ms} ms`), ms };
  return {
    ...finding(check, "fail", `${what} ${why.message}`, why.fix ?? "see the checks above and the functions' logs"),
    ms,
  };
}

/** The two dry-run creates, each as one finding with the time it took. */
export async function runProbes(
  cluster: DoctorCluster,
  { credspec, allowed, refused }: ProbeSubjects,
  found: readonly FoundWebhook[],
): Promise<Finding[]> {
  const explain = (prefix: string, message: string): NamedFault => {
    const named = explainWebhookCallError(message, found) ?? { message };
    return { ...named, message: `${prefix}: ${named.message}` };
  };
  const may = await probe(
    cluster,
    "end-to-end/may-use",
    allowed,
    credspec,
    "came back with the contents inlined",
    ({ status, body }, message) => {
      if (status !== 201) return explain(`was refused (${status})`, message);
      const inlined = (body as V1Pod).spec?.securityContext?.windowsOptions?.gmsaCredentialSpec !== undefined;
      return inlined ? undefined : { message: "was admitted without the contents inlined: expand did not run" };
    },
  );
  if (refused === undefined) {
    return [
      may,
      finding(
        "end-to-end/may-not-use",
        "skip",
        `every service account of namespace ${allowed.namespace} may use ${credspec}: no refusal to probe`,
      ),
    ];
  }
  const mayNot = await probe(
    cluster,
    "end-to-end/may-not-use",
    refused,
    credspec,
    "was refused with 403 by authorize",
    ({ status }, message) => {
      if (status === 201) return { message: "was admitted: authorize did not refuse it" };
      if (status === 403 && message.includes(EXPECTED_WEBHOOKS.authorize.webhook.name)) return undefined;
      return explain(`was refused with ${status} instead of authorize's 403`, message);
    },
  );
  return [may, mayNot];
}
