/**
 * `kubectl gmsa who-can-use CREDSPEC [-n NS | -A]`: the service accounts that may `use` a GMSACredentialSpec, each
 * asked of the API server with the same LocalSubjectAccessReview authorize sends, so the answer holds for every
 * authorizer the cluster runs (RBAC, webhooks, ...), not only for the RBAC objects one could read by hand.
 */
import { credSpecPath } from "../../shared/kube/client.ts";
import { reviewCredSpecAccess } from "../../shared/kube/access-reviews.ts";
import { CLI_CALL, expectSuccess, listAll, mapLimit, runClusterCommand, type ClusterCommand } from "./cluster.ts";
import { EXIT_OK, type CliIo } from "./io.ts";
import { printResult } from "./output.ts";
import { WHO_CAN_USE_USAGE } from "./usage.ts";

/** Access reviews in flight at once: quick for a few hundred service accounts, gentle on the API server. */
const REVIEWS_IN_PARALLEL = 8;

/** One service account that may use the credspec, and the authorizer's reason. */
export interface Allowed {
  namespace: string;
  name: string;
  reason: string;
}

const command: ClusterCommand<{ "all-namespaces": { type: "boolean"; short: "A" } }> = {
  name: "who-can-use",
  options: { "all-namespaces": { type: "boolean", short: "A" } },
  usage: WHO_CAN_USE_USAGE,
  check: ({ positionals, values, flags }) => [
    ...(positionals.length === 1 ? [] : [`expected one GMSACredentialSpec name, got ${positionals.length}`]),
    ...(values["all-namespaces"] === true && flags.namespace !== undefined ? ["-A and -n exclude each other"] : []),
  ],
  async run({ positionals: [credSpec = ""], values, flags }, connection, io) {
    const found = await connection.request({ method: "GET", path: credSpecPath(credSpec) });
    if (found.status === 404) throw new Error(`GMSACredentialSpec ${JSON.stringify(credSpec)} does not exist (or the CRD is not installed)`);
    expectSuccess(found, `reading GMSACredentialSpec ${JSON.stringify(credSpec)}`);
    const all = values["all-namespaces"] === true;
    const where = all ? "/api/v1/serviceaccounts" : `/api/v1/namespaces/${encodeURIComponent(connection.namespace)}/serviceaccounts`;
    const accounts = (await listAll(connection, where, "listing service accounts")) as { metadata: { namespace: string; name: string } }[];
    const answers = await mapLimit(accounts, REVIEWS_IN_PARALLEL, ({ metadata: { namespace, name } }) =>
      reviewCredSpecAccess(connection.requester, { namespace, serviceAccount: name, credSpecName: credSpec }, CLI_CALL),
    );
    const allowed: Allowed[] = accounts.flatMap(({ metadata: { namespace, name } }, index) => {
      const answer = answers[index];
      return answer?.allowed === true ? [{ namespace, name, reason: answer.reason }] : [];
    });
    printResult(io, flags.output, allowed, (paint) => {
      const scope = all ? "any namespace" : `namespace "${connection.namespace}"`;
      if (allowed.length === 0) return `No service account in ${scope} may use GMSACredentialSpec "${credSpec}" (${accounts.length} asked).\n`;
      return allowed.map(({ namespace, name, reason }) => `${paint.ok(`${namespace}/${name}`)}${reason ? `  ${reason}` : ""}\n`).join("");
    });
    return EXIT_OK;
  },
};

/** Runs `who-can-use`: exit 0 with the list (possibly empty), 1 for an unknown credspec or a failed call, 2 usage. */
export function runWhoCanUseCommand(argv: readonly string[], io: CliIo): Promise<number> {
  return runClusterCommand(command, argv, io);
}
