/** What the cluster commands share: their global flags, printing, and a read-only connection built from the Node platform's kube pieces (functions/node/kube). */
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { ParseArgsOptionsConfig } from "node:util";
import { stringify } from "yaml";
import { ConfigurationError, parseKubeSettings } from "../shared/config/index.ts";
import { serviceAccountSubject } from "../shared/kube/access-reviews.ts";
import { createKubeRequester, readStatus, type CallOptions, type KubeRequest } from "../shared/kube/request.ts";
import { loadNodeKubeCredentials } from "../functions/node/kube/load-credentials.ts";
import { createHttpsKubeFetch } from "../functions/node/kube/https-fetch.ts";
import { SERVICE_ACCOUNT_DIR } from "../functions/node/kube/load-kubeconfig.ts";
import { CLUSTER_OPTIONS, command, EXIT_INVALID, type CliIo, type CommandLine, type CommandSpec } from "./io.ts";

/** The global flags of every cluster command, for their usage texts. */
export const CLUSTER_FLAGS_USAGE = `Cluster flags (as kubectl's, with its defaults; docs/kubectl-gmsa.md):
  --kubeconfig <file>, --context <name>, -n/--namespace <ns>
  --as <user>             impersonate this user (access reviews are still sent as you)
  --as-group <group>      impersonate this group too; repeatable; needs --as
  -o, --output json|yaml  print for scripts (default: text, coloured on a terminal unless NO_COLOR)
  -h, --help              show this help

Exit status: 0 all well, 1 something wrong (a finding, a denial, an unreachable
cluster), 2 usage error. Tokens are never printed.
`;

type ClusterFlags = ReturnType<typeof readClusterFlags>["flags"];

/** A cluster command's parsed command line, with its global flags checked. */
export type ClusterArgs<O extends ParseArgsOptionsConfig> = CommandLine<typeof CLUSTER_OPTIONS & O> & {
  flags: ClusterFlags;
};

/** One request to the API server; `asCaller` sends it as the kubeconfig's user even with `--as` (reviews the person could not create). */
export type ClusterRequest = Pick<KubeRequest, "method" | "path" | "body" | "text"> & {
  query?: Record<string, string>;
  asCaller?: boolean;
};

/** The answer: any HTTP status, the parsed JSON body, and the API server's warnings (a dry run's admission warnings). */
export type ClusterAnswer = Awaited<ReturnType<ClusterConnection["request"]>>;

/** A connection to the cluster the flags select. */
export type ClusterConnection = Awaited<ReturnType<typeof connectCluster>>;

/** A command's answer can take a webhook's whole timeout (up to 30 s) plus the API server's own work. */
const CLI_REQUEST_TIMEOUT_MS = 40_000;

/** The texts of `Warning: 299 - "text"` headers (RFC 7234 warn-text; several may arrive joined by ", "). */
function parseWarnings(header: string | null | undefined): string[] {
  return [...(header ?? "").matchAll(/\d{3} \S+ "((?:[^"\\]|\\.)*)"/g)].map((match) =>
    (match[1] ?? "").replace(/\\(.)/g, "$1"),
  );
}

/**
 * The user and groups the API server gives a user it impersonates (`--as`, `--as-group`), for the access reviews
 * that ask about them: a service account's name brings its groups unless groups are given, every user gets
 * system:authenticated but system:anonymous, who gets system:unauthenticated (as kube-apiserver's impersonation filter
 * adds them).
 */
export function impersonatedSubject(user: string, groups: readonly string[] = []): { user: string; groups: string[] } {
  const sa = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(user);
  if (sa !== null && groups.length === 0) return serviceAccountSubject(sa[1]!, sa[2]!);
  const anonymous = user === "system:anonymous";
  const implied = anonymous ? "system:unauthenticated" : "system:authenticated";
  const present = anonymous
    ? groups.some((g) => g === "system:authenticated" || g === "system:unauthenticated")
    : groups.includes(implied);
  return { user, groups: present ? [...groups] : [...groups, implied] };
}

/** The call options of shared/kube's calls from the CLI: no deadline but the requester's own. */
export const CLI_CALL: CallOptions = { signal: new AbortController().signal };

/**
 * Connects as kubectl would: `--kubeconfig`, else KUBECONFIG (a path list, merged), else ~/.kube/config, else
 * in-cluster; `--context`, else current-context. Kubeconfig warnings go to stderr.
 * @throws KubeConfigurationError naming every problem with the kubeconfig or its user's credential.
 */
async function connectCluster(flags: ClusterFlags, io: CliIo) {
  const { env } = io;
  const { settings } = parseKubeSettings({
    KUBECONFIG: flags.kubeconfig ?? env.KUBECONFIG,
    KUBE_CONTEXT: flags.context,
    KUBERNETES_SERVICE_HOST: env.KUBERNETES_SERVICE_HOST,
    KUBERNETES_SERVICE_PORT: env.KUBERNETES_SERVICE_PORT,
  });
  const credentials = await loadNodeKubeCredentials(settings, {
    baseEnv: env,
    ...(env.HOME ? { homeDir: env.HOME } : {}),
  });
  for (const warning of credentials.warnings) io.stderr(`${io.program}: warning: ${warning}\n`);
  const { target, caPem, clientCertificate } = credentials.loaded;
  const { cluster } = target;
  const connect = (headers: Record<string, string | string[]> = {}) => {
    const transport = createHttpsKubeFetch({ ...cluster, ca: caPem, clientCertificate, connections: 4, headers });
    const requester = createKubeRequester({
      ...cluster,
      fetch: transport.fetch,
      tokenSource: credentials.tokenSource,
      requestTimeoutMs: CLI_REQUEST_TIMEOUT_MS,
    });
    return { transport, requester };
  };
  const caller = connect();
  const person =
    flags.as === undefined ? caller : connect({ "Impersonate-User": flags.as, "Impersonate-Group": flags.asGroups });
  let namespace = flags.namespace ?? target.namespace;
  if (namespace === undefined && target.contextName === "in-cluster") {
    namespace =
      (await readFile(path.join(SERVICE_ACCOUNT_DIR, "namespace"), "utf8").catch(() => "")).trim() || undefined;
  }
  return {
    /** @throws AdmissionError ERR_KUBE_API / ERR_CREDENTIALS / ERR_DEADLINE_EXCEEDED when the API server cannot answer. */
    async request({ method, path: apiPath, query, body, asCaller, text }: ClusterRequest) {
      const search = query === undefined ? "" : `?${new URLSearchParams(query).toString()}`;
      // `resource` is a metrics label; the CLI has no observer.
      const answer = await (asCaller === true ? caller : person).requester({
        method,
        path: `${apiPath}${search}`,
        resource: "gmsacredentialspecs",
        body,
        what: `${method} ${apiPath}`,
        ...(text === true ? { text } : {}),
        ...CLI_CALL,
      });
      return { status: answer.status, body: answer.body, warnings: parseWarnings(answer.headers?.get("Warning")) };
    },
    /** The kubeconfig user's requester (never impersonating), for shared/kube's calls: access reviews, credspec reads. */
    requester: caller.requester,
    /** `-n`, else the context's namespace, else the pod's own in-cluster, else `default`: as kubectl picks it. */
    namespace: namespace ?? "default",
    async close() {
      credentials.close();
      await Promise.all([...new Set([caller, person])].map(({ transport }) => transport.close()));
    },
  };
}

/** What a cluster command declares: its own options, its usage text, and its work once connected. */
export interface ClusterCommand<O extends ParseArgsOptionsConfig> extends Omit<CommandSpec<O>, "check" | "run"> {
  /** Checks the positionals and values beyond the flags; returns usage errors (EXIT_USAGE). */
  check?: (args: ClusterArgs<O>) => string[];
  /** Resolves to the exit status. Errors it throws are printed, as EXIT_INVALID. */
  run(args: ClusterArgs<O>, connection: ClusterConnection, io: CliIo): Promise<number>;
}

/** The global flags of a parsed command line, and what is wrong with them (kubectl refuses the same). */
function readClusterFlags(values: Record<string, unknown>) {
  const text = (name: keyof typeof CLUSTER_OPTIONS) => values[name] as string | undefined;
  const errors = (["kubeconfig", "context", "namespace", "as"] as const)
    .filter((name) => text(name) === "")
    .map((name) => `--${name} must not be empty`);
  const output = text("output") ?? "text";
  if (output !== "text" && output !== "json" && output !== "yaml")
    errors.push(`-o/--output must be json or yaml, got ${JSON.stringify(output)}`);
  const asGroups = (values["as-group"] as string[] | undefined) ?? [];
  // Groups alone would impersonate nobody.
  if (asGroups.length > 0 && text("as") === undefined) errors.push("--as-group needs --as (the user to impersonate)");
  const flags = {
    kubeconfig: text("kubeconfig"),
    context: text("context"),
    namespace: text("namespace"),
    as: text("as"),
    asGroups,
    output: output as OutputFormat,
  };
  return { flags, errors };
}

/**
 * The runner of a cluster command: reads its command line ({@link CLUSTER_OPTIONS} and its own), connects, runs; a
 * kubeconfig problem or an API server that cannot answer becomes its message on stderr and exit 1.
 */
export function clusterCommand<O extends ParseArgsOptionsConfig>(
  cluster: ClusterCommand<O>,
): (argv: readonly string[], io: CliIo) => Promise<number> {
  const argsOf = (line: CommandLine<typeof CLUSTER_OPTIONS & O>) => {
    const { flags, errors } = readClusterFlags(line.values);
    const args = { ...line, flags };
    return { args, errors: [...errors, ...(cluster.check?.(args) ?? [])] };
  };
  const run = async (line: CommandLine<typeof CLUSTER_OPTIONS & O>, io: CliIo): Promise<number> => {
    let connection: ClusterConnection | undefined;
    try {
      const { args } = argsOf(line);
      connection = await connectCluster(args.flags, io);
      return await cluster.run(args, connection, io);
    } catch (error) {
      const problems =
        error instanceof ConfigurationError ? error.problems : [error instanceof Error ? error.message : String(error)];
      for (const problem of problems) io.stderr(`${io.program} ${cluster.name}: ${problem}\n`);
      return EXIT_INVALID;
    } finally {
      await connection?.close();
    }
  };
  return command({
    ...cluster,
    options: { ...CLUSTER_OPTIONS, ...cluster.options },
    check: (parsed) => argsOf(parsed).errors,
    run,
  });
}

/** @throws Error `${what}: the API server answered 403 Forbidden: <its message>` unless the answer is a 2xx. */
export function expectSuccess(answer: ClusterAnswer, what: string): void {
  if (answer.status >= 200 && answer.status < 300) return;
  const status = readStatus(answer.body);
  throw new Error(
    `${what}: the API server answered ${answer.status}${status?.reason ? ` ${status.reason}` : ""}${status?.message ? `: ${status.message}` : ""}`,
  );
}

/** `items` of every page of a list (`limit` and `continue`, as kubectl pages), or the first failure. */
export async function listAll(
  connection: Pick<ClusterConnection, "request">,
  apiPath: string,
  what: string,
): Promise<unknown[]> {
  const items: unknown[] = [];
  let next: string | undefined;
  do {
    const answer = await connection.request({
      method: "GET",
      path: apiPath,
      query: { limit: "500", ...(next ? { continue: next } : {}) },
    });
    expectSuccess(answer, what);
    const page = answer.body as { items?: unknown[]; metadata?: { continue?: string } };
    items.push(...(page.items ?? []));
    next = page.metadata?.continue || undefined;
  } while (next !== undefined);
  return items;
}

/** Paints text for a terminal; every function is the identity when colour is off. */
export type Paint = Record<"ok" | "bad" | "warn" | "bold", (text: string) => string>;

type OutputFormat = "text" | "json" | "yaml";

/** Prints `data` as JSON or YAML, or `text(paint)` for people: colour only on a terminal with NO_COLOR unset (no-color.org). */
export function printResult(io: CliIo, format: OutputFormat, data: unknown, text: (paint: Paint) => string): void {
  if (format !== "text") return io.stdout(format === "json" ? `${JSON.stringify(data, null, 2)}\n` : stringify(data));
  const colour = io.stdoutIsTty === true && io.env.NO_COLOR === undefined;
  const ansi = (code: number) =>
    colour ? (painted: string) => `\u001b[${code}m${painted}\u001b[0m` : (plain: string) => plain;
  io.stdout(text({ ok: ansi(32), bad: ansi(31), warn: ansi(33), bold: ansi(1) }));
}
