import { credSpecPath } from "../shared/kube/client.ts";
import { reviewCredSpecAccess } from "../shared/kube/access-reviews.ts";
import { CLI_CALL, clusterCommand, CLUSTER_FLAGS_USAGE, expectSuccess, listAll, printResult } from "./cluster.ts";
import { EXIT_OK } from "./io.ts";

/** Access reviews in flight at once: quick for a few hundred service accounts, gentle on the API server. */
const REVIEWS_IN_PARALLEL = 8;

const OPTIONS = { "all-namespaces": { type: "boolean", short: "A" } } as const;

/** Runs `who-can-use`: exit 0 with the list (possibly empty), 1 for an unknown credspec or a failed call, 2 usage. */
export const runWhoCanUseCommand = clusterCommand({
  name: "who-can-use",
  options: OPTIONS,
  usage: `Usage: gmsa-webhooks who-can-use <credspec> [-n <namespace> | -A] [cluster flags]

The service accounts that may "use" the GMSACredentialSpec <credspec>, one line each
with the authorizer's reason (-o json|yaml: a list of {namespace, name, reason}), each
asked with the LocalSubjectAccessReview authorize sends: the answer holds for every
authorizer the cluster runs, not only RBAC. An unknown credspec exits 1.

Options:
  -A, --all-namespaces    ask about the service accounts of every namespace

${CLUSTER_FLAGS_USAGE}`,
  check: ({ positionals, values, flags }) => [
    ...(positionals.length === 1 ? [] : [`expected one GMSACredentialSpec name, got ${positionals.length}`]),
    ...(values["all-namespaces"] === true && flags.namespace !== undefined ? ["-A and -n exclude each other"] : []),
  ],
  async run({ positionals: [credSpec = ""], values, flags }, connection, io) {
    const found = await connection.request({ method: "GET", path: credSpecPath(credSpec) });
    if (found.status === 404)
      throw new Error(`GMSACredentialSpec ${JSON.stringify(credSpec)} does not exist (or the CRD is not installed)`);
    expectSuccess(found, `reading GMSACredentialSpec ${JSON.stringify(credSpec)}`);
    const all = values["all-namespaces"] === true;
    const where = all
      ? "/api/v1/serviceaccounts"
      : `/api/v1/namespaces/${encodeURIComponent(connection.namespace)}/serviceaccounts`;
    const accounts = (await listAll(connection, where, "listing service accounts")) as {
      metadata: { namespace: string; name: string };
    }[];
    const allowed: { namespace: string; name: string; reason: string }[] = [];
    for (let start = 0; start < accounts.length; start += REVIEWS_IN_PARALLEL) {
      const batch = accounts
        .slice(start, start + REVIEWS_IN_PARALLEL)
        .map(async ({ metadata: { namespace, name } }) => {
          const answer = await reviewCredSpecAccess(
            connection.requester,
            { namespace, serviceAccount: name, credSpecName: credSpec },
            CLI_CALL,
          );
          return answer.allowed ? [{ namespace, name, reason: answer.reason }] : [];
        });
      allowed.push(...(await Promise.all(batch)).flat());
    }
    printResult(io, flags.output, allowed, (paint) => {
      const scope = all ? "any namespace" : `namespace "${connection.namespace}"`;
      if (allowed.length === 0)
        return `No service account in ${scope} may use GMSACredentialSpec "${credSpec}" (${accounts.length} asked).\n`;
      return allowed
        .map(({ namespace, name, reason }) => `${paint.ok(`${namespace}/${name}`)}${reason ? `  ${reason}` : ""}\n`)
        .join("");
    });
    return EXIT_OK;
  },
});
