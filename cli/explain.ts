/** `kubectl gmsa explain`, from the policy's own walk of the pod, the calls authorize and expand make, and a dry run. */
import { parseAllDocuments } from "yaml";
import { PodSchema, type Pod } from "../shared/admission/review.ts";
import type { AccessAnswer, Requester } from "../shared/policy/facts.ts";
import { readPodGmsa } from "../shared/policy/pod-gmsa.ts";
import { reviewCredSpecAccess } from "../shared/kube/access-reviews.ts";
import { readCredSpecContents } from "../shared/kube/client.ts";
import { readStatus } from "../shared/kube/request.ts";
import {
  CLI_CALL,
  clusterCommand,
  CLUSTER_FLAGS_USAGE,
  expectSuccess,
  impersonatedSubject,
  printResult,
  type ClusterConnection,
  type Paint,
} from "./cluster.ts";
import { EXIT_INVALID, EXIT_OK, EXIT_USAGE, readInput } from "./io.ts";

/** A fact asked of the API server: its answer, or why there is none. */
type Asked<T> = T | { error: string };

type Explanation = Awaited<ReturnType<typeof explain>>;

const asked = <T>(work: () => Promise<T>): Promise<Asked<T>> =>
  Promise.resolve()
    .then(work)
    .catch((error: unknown) => ({ error: error instanceof Error ? error.message : String(error) }));

/** A copy with every `PluginInput` value hidden: it may hold a credential or point at one. */
const hidePluginInput = (contents: unknown): unknown =>
  JSON.parse(JSON.stringify(contents, (key, value: unknown) => (key === "PluginInput" ? "(hidden)" : value)));

/** The one Pod in `text` (YAML or JSON), or why it is not one. */
function readPodDocument(text: string): { pod: Pod } | { error: string } {
  const documents = parseAllDocuments(text).filter((document) => document.contents !== null);
  if (documents.length !== 1) return { error: `expected one Pod, found ${documents.length} documents` };
  const [document] = documents;
  if (document === undefined || document.errors.length > 0)
    return { error: `not YAML: ${document?.errors[0]?.message ?? "empty"}` };
  const object = document.toJS() as { kind?: unknown } | null;
  if (object?.kind !== "Pod")
    return { error: `expected kind Pod, got ${JSON.stringify(object?.kind ?? null)} (explain reads Pods)` };
  const parsed = PodSchema.safeParse(object);
  if (!parsed.success)
    return {
      error: `not a valid Pod: ${parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")}`,
    };
  return { pod: parsed.data };
}

/** The kubeconfig user as the API server sees them (SelfSubjectReview), for the reviews about "the person". */
async function whoAmI(connection: ClusterConnection): Promise<Requester> {
  const body = { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" };
  const answer = await connection.request({
    method: "POST",
    path: "/apis/authentication.k8s.io/v1/selfsubjectreviews",
    body,
    asCaller: true,
  });
  expectSuccess(answer, "SelfSubjectReview");
  const user = (answer.body as { status?: { userInfo?: Requester } } | undefined)?.status?.userInfo;
  if (user?.username === undefined) throw new Error("SelfSubjectReview: no userInfo");
  return user;
}

/**
 * Asks everything about `pod` in `namespace`: per credspec it names, where (`pod`, `container "web"`, ...), the two
 * reviews and what expand inlines (size in bytes, PluginInput hidden); `contentsWithoutName`: places authorize refuses.
 */
async function explain(pod: Pod, namespace: string, person: Asked<Requester>, connection: ClusterConnection) {
  const serviceAccount = pod.spec?.serviceAccountName || "default";
  const { refs } = readPodGmsa(pod);
  const places = Map.groupBy(
    refs.flatMap(({ name, label }) => (name === undefined ? [] : [{ name, label }])),
    (ref) => ref.name,
  );
  const credSpecs = await Promise.all(
    [...places].map(async ([name, named]) => {
      const [saAnswer, personAnswer, inlines] = await Promise.all([
        asked(() =>
          reviewCredSpecAccess(connection.requester, { namespace, serviceAccount, credSpecName: name }, CLI_CALL),
        ),
        "error" in person
          ? person
          : asked(() =>
              reviewCredSpecAccess(connection.requester, { namespace, user: person, credSpecName: name }, CLI_CALL),
            ),
        asked(async () => {
          const contents = await readCredSpecContents(connection.requester, name, CLI_CALL);
          return {
            bytes: new TextEncoder().encode(JSON.stringify(contents)).length,
            contents: hidePluginInput(contents),
          };
        }),
      ]);
      return { name, places: named.map((ref) => ref.label), serviceAccount: saAnswer, person: personAnswer, inlines };
    }),
  );
  const body = { ...pod, metadata: { ...pod.metadata, namespace } };
  const answer = await connection.request({
    method: "POST",
    path: `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods`,
    query: { dryRun: "All" },
    body,
  });
  const admitted = answer.status >= 200 && answer.status < 300;
  const message = admitted ? undefined : (readStatus(answer.body)?.message ?? `HTTP ${answer.status}`);
  return {
    pod: { namespace, name: pod.metadata?.name ?? pod.metadata?.generateName ?? "", serviceAccount },
    person,
    credSpecs,
    contentsWithoutName: refs.filter((ref) => ref.name === undefined).map((ref) => ref.label),
    dryRun: {
      admitted,
      status: answer.status,
      ...(message === undefined ? {} : { message }),
      warnings: answer.warnings,
    },
  };
}

function formatExplanation({ pod, person, credSpecs, contentsWithoutName, dryRun }: Explanation, paint: Paint): string {
  const personName = "error" in person ? "you" : person.username;
  const describeAccess = (who: string, answer: Asked<AccessAnswer>): string => {
    if ("error" in answer) return `    ${who} may use it: ${paint.warn("unknown")}: ${answer.error}\n`;
    return `    ${who} may use it: ${answer.allowed ? paint.ok("yes") : paint.bad("no")}${answer.reason ? `  (${answer.reason})` : ""}\n`;
  };
  let text = `Pod ${paint.bold(`${pod.namespace}/${pod.name}`)}, service account ${pod.namespace}/${pod.serviceAccount}\n`;
  if ("error" in person) text += `  who you are is unknown (${person.error})\n`;
  if (credSpecs.length === 0 && contentsWithoutName.length === 0)
    text += "  names no GMSACredentialSpec: the webhooks leave it as it is\n";
  for (const found of credSpecs) {
    text += `  GMSACredentialSpec "${found.name}" (${found.places.join(", ")})\n`;
    text += describeAccess(`service account ${pod.namespace}/${pod.serviceAccount}`, found.serviceAccount);
    text += describeAccess(personName, found.person);
    text +=
      "error" in found.inlines
        ? `    expand inlines: ${paint.bad("nothing")}: ${found.inlines.error}\n`
        : `    expand inlines ${found.inlines.bytes} bytes: ${JSON.stringify(found.inlines.contents)}\n`;
  }
  for (const label of contentsWithoutName) text += `  ${label}: credential spec contents without a name\n`;
  const verdict = dryRun.admitted ? paint.ok(`admitted (${dryRun.status})`) : paint.bad(`refused (${dryRun.status})`);
  text += `Dry run as ${personName}: ${verdict}\n`;
  if (dryRun.message !== undefined) text += `  ${dryRun.message}\n`;
  for (const warning of dryRun.warnings) text += `  ${paint.warn("warning")}: ${warning}\n`;
  return text;
}

const OPTIONS = { filename: { type: "string", short: "f" } } as const;

/** Runs `explain`: exit 0 when the dry run admits the pod, 1 when it is refused or a call fails, 2 usage. */
export const runExplainCommand = clusterCommand({
  name: "explain",
  options: OPTIONS,
  usage: `Usage: gmsa-webhooks explain -f <pod.yaml | -> [cluster flags]

What the GMSA webhooks would do with a Pod, without creating it: for each
GMSACredentialSpec it names, whether its service account and the person (--as, else
you) may "use" it as authorize asks, what expand would inline (PluginInput hidden),
and the verdict of a server-side dry run of the create as the person.

Options:
  -f, --filename <file>   the Pod, YAML or JSON; - reads stdin

${CLUSTER_FLAGS_USAGE}Here 0 means the dry run admits the pod, 1 that it is refused (or a call failed).

Example:
  kubectl gmsa explain -f pod.yaml --as jane@contoso.com
`,
  check: ({ positionals, values }) => [
    ...(values.filename ? [] : ["-f <file | -> is required"]),
    ...(positionals.length === 0 ? [] : [`unexpected argument ${JSON.stringify(positionals[0])}`]),
  ],
  async run({ values, flags }, connection, io) {
    const file = values.filename as string;
    const fail = (problem: string): number => {
      io.stderr(`${io.program} explain: ${file === "-" ? "stdin" : file}: ${problem}\n`);
      return EXIT_USAGE;
    };
    const bytes = await readInput(io, "explain", file);
    if (bytes === undefined) return EXIT_USAGE;
    const read = readPodDocument(new TextDecoder().decode(bytes));
    if ("error" in read) return fail(read.error);
    const podNamespace = read.pod.metadata?.namespace;
    if (podNamespace !== undefined && flags.namespace !== undefined && podNamespace !== flags.namespace) {
      return fail(`the Pod's namespace "${podNamespace}" does not match -n "${flags.namespace}"`);
    }
    const person: Asked<Requester> =
      flags.as === undefined
        ? await asked(() => whoAmI(connection))
        : { username: flags.as, groups: impersonatedSubject(flags.as, flags.asGroups).groups };
    const explanation = await explain(read.pod, podNamespace ?? connection.namespace, person, connection);
    printResult(io, flags.output, explanation, (paint) => formatExplanation(explanation, paint));
    return explanation.dryRun.admitted ? EXIT_OK : EXIT_INVALID;
  },
});
