/**
 * The cluster commands' shared half: their global flags (kubectl's names and defaults) and the connection they make,
 * built from the Node server's own kube plumbing (kubeconfig rules, exec plugins and token sources, node:https), so
 * the CLI reaches a cluster exactly as the functions would. Read-only by design: GETs, access reviews and dry runs.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { ParseArgsOptionsConfig } from "node:util";
import { parseClusterArgs, type ClusterArgs, type ClusterFlags } from "./cluster-flags.ts";
import { ConfigurationError, parseKubeSettings } from "../../shared/config/index.ts";
import { redactPath } from "../../shared/http/on-error.ts";
import type { CallOptions } from "../../shared/kube/client.ts";
import { createKubeRequester, readStatus, type KubeRequester } from "../../shared/kube/request.ts";
import { loadNodeKubeCredentials } from "../node/kube/create-gmsa-client.ts";
import { createHttpsKubeFetch } from "../node/kube/https-fetch.ts";
import { SERVICE_ACCOUNT_DIR } from "../node/kube/load-kubeconfig.ts";
import { answerUsage, EXIT_INVALID, programOf, type CliIo } from "./io.ts";

export { CLUSTER_OPTIONS, parseClusterArgs, type ClusterArgs, type ClusterFlags, type OutputFormat } from "./cluster-flags.ts";

/** One request to the API server: an absolute path, query parameters, a JSON body for POST. */
export interface ClusterRequest {
  method: "GET" | "POST";
  path: string;
  query?: Record<string, string> | undefined;
  body?: unknown;
  /**
   * Send it as the kubeconfig's user even when `--as` is given: access reviews the person could not create
   * themselves. Default false: `--as` impersonates, as kubectl's does.
   */
  asCaller?: boolean | undefined;
}

/** The answer: any HTTP status, the parsed JSON body, and the API server's warnings (a dry run's admission warnings). */
export interface ClusterAnswer {
  status: number;
  body: unknown;
  warnings: string[];
}

/** A connection to the cluster the flags select. */
export interface ClusterConnection {
  /** @throws KubeApiError / CredentialsError / DeadlineExceededError when the API server cannot answer. */
  request(request: ClusterRequest): Promise<ClusterAnswer>;
  /** The kubeconfig user's requester (never impersonating), for shared/kube's calls: access reviews, credspec reads. */
  requester: KubeRequester;
  /** The API server's URL for display: any path after its first segment masked (it may be a secret). */
  server: string;
  /** The context's name. */
  context: string;
  /** `-n`, else the context's namespace, else the pod's own in-cluster, else `default`: as kubectl picks it. */
  namespace: string;
  /** Kills running exec plugins and closes the connections. */
  close(): Promise<void>;
}

/** A command's answer can take a webhook's whole timeout (up to 30 s) plus the API server's own work. */
const CLI_REQUEST_TIMEOUT_MS = 40_000;

/** `https://host/k8s/clusters/c-1` as `https://host/k8s/…`: no user info, query or path secret. */
export function maskServer(server: string): string {
  try {
    const url = new URL(server);
    return `${url.origin}${url.pathname === "/" ? "" : redactPath(url.pathname)}`;
  } catch {
    return "(not a URL)";
  }
}

/** The texts of `Warning: 299 - "text"` headers (RFC 7234 warn-text; several may arrive joined by ", "). */
export function parseWarnings(header: string | null): string[] {
  if (header === null) return [];
  return [...header.matchAll(/\d{3} \S+ "((?:[^"\\]|\\.)*)"/g)].map((match) => (match[1] ?? "").replace(/\\(.)/g, "$1"));
}

/** The call options of shared/kube's calls from the CLI: no deadline but the requester's own. */
export const CLI_CALL: CallOptions = { signal: new AbortController().signal };

/**
 * Connects to the cluster the flags select, as kubectl would: `--kubeconfig`, else KUBECONFIG (a path list, merged),
 * else ~/.kube/config, else in-cluster; `--context`, else current-context. Kubeconfig warnings go to stderr.
 * @throws KubeConfigurationError naming every problem with the kubeconfig or its user's credential.
 */
export async function connectCluster(flags: ClusterFlags, io: CliIo): Promise<ClusterConnection> {
  const { env } = io;
  const { settings } = parseKubeSettings({
    KUBECONFIG: flags.kubeconfig ?? env.KUBECONFIG,
    KUBE_CONTEXT: flags.context,
    KUBERNETES_SERVICE_HOST: env.KUBERNETES_SERVICE_HOST,
    KUBERNETES_SERVICE_PORT: env.KUBERNETES_SERVICE_PORT,
  });
  const credentials = await loadNodeKubeCredentials(settings, { baseEnv: env, ...(env.HOME ? { homeDir: env.HOME } : {}) });
  for (const warning of credentials.warnings) io.stderr(`${programOf(io)}: warning: ${warning}\n`);
  const { target, caPem, clientCertificate } = credentials.loaded;
  const { cluster } = target;
  const impersonation = flags.as === undefined ? undefined : { "Impersonate-User": flags.as, "Impersonate-Group": flags.asGroups };
  const transports = [undefined, impersonation].map((headers) =>
    createHttpsKubeFetch({ ...cluster, ca: caPem, clientCertificate, connections: 4, ...(headers === undefined ? {} : { headers }) }),
  );
  const [caller, person] = transports.map((transport) =>
    createKubeRequester({
      server: cluster.server,
      fetch: transport.fetch,
      tokenSource: credentials.tokenSource,
      disableCompression: cluster.disableCompression,
      requestTimeoutMs: CLI_REQUEST_TIMEOUT_MS,
    }),
  ) as [KubeRequester, KubeRequester];
  let namespace = flags.namespace ?? target.namespace;
  if (namespace === undefined && target.contextName === "in-cluster") {
    namespace = (await readFile(path.join(SERVICE_ACCOUNT_DIR, "namespace"), "utf8").catch(() => "")).trim() || undefined;
  }
  return {
    async request({ method, path: apiPath, query, body, asCaller }) {
      const search = query === undefined ? "" : `?${new URLSearchParams(query).toString()}`;
      // `resource` is a metrics label; the CLI has no observer.
      const answer = await (asCaller === true ? caller : person)({
        method,
        path: `${apiPath}${search}`,
        resource: "gmsacredentialspecs",
        body,
        what: `${method} ${apiPath}`,
        ...CLI_CALL,
      });
      return { status: answer.status, body: answer.body, warnings: parseWarnings(answer.headers?.get("Warning") ?? null) };
    },
    requester: caller,
    server: maskServer(cluster.server),
    context: target.contextName,
    namespace: namespace ?? "default",
    async close() {
      credentials.close();
      await Promise.all(transports.map((transport) => transport.close()));
    },
  };
}

/** What a cluster command declares: its own options, its usage text, and its work once connected. */
export interface ClusterCommand<O extends ParseArgsOptionsConfig> {
  name: string;
  options: O;
  usage: string;
  /** Checks the positionals and values beyond the flags; returns usage errors (EXIT_USAGE). */
  check?: (args: ClusterArgs<O>) => string[];
  /** Resolves to the exit status. Errors it throws are printed, as EXIT_INVALID. */
  run(args: ClusterArgs<O>, connection: ClusterConnection, io: CliIo): Promise<number>;
}

/**
 * Runs a cluster command: parses its flags once, answers --help and usage errors (exit 2), connects, runs, and
 * turns a kubeconfig problem or an API server that cannot answer into its message on stderr and exit 1.
 */
export async function runClusterCommand<O extends ParseArgsOptionsConfig>(command: ClusterCommand<O>, argv: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseClusterArgs(argv, command.options);
  if (!parsed.ok) return answerUsage(command.name, parsed, command.usage, io);
  if (parsed.args.flags.help) return answerUsage(command.name, { ok: true, args: { help: true } }, command.usage, io);
  const errors = command.check?.(parsed.args) ?? [];
  if (errors.length > 0) return answerUsage(command.name, { ok: false, errors }, command.usage, io);
  let connection: ClusterConnection | undefined;
  try {
    connection = await connectCluster(parsed.args.flags, io);
    return await command.run(parsed.args, connection, io);
  } catch (error) {
    const problems = error instanceof ConfigurationError ? error.problems : [error instanceof Error ? error.message : String(error)];
    for (const problem of problems) io.stderr(`${programOf(io)} ${command.name}: ${problem}\n`);
    return EXIT_INVALID;
  } finally {
    await connection?.close();
  }
}

/**
 * Throws unless the answer is a 2xx, naming what was asked, the status and the API server's own message.
 * @throws Error `${what}: the API server answered 403 Forbidden: <its message>`.
 */
export function expectSuccess(answer: ClusterAnswer, what: string): void {
  if (answer.status >= 200 && answer.status < 300) return;
  const status = readStatus(answer.body);
  throw new Error(`${what}: the API server answered ${answer.status}${status?.reason ? ` ${status.reason}` : ""}${status?.message ? `: ${status.message}` : ""}`);
}

/** `items` of every page of a list (`limit` and `continue`, as kubectl pages), or the first failure. */
export async function listAll(connection: Pick<ClusterConnection, "request">, apiPath: string, what: string): Promise<unknown[]> {
  const items: unknown[] = [];
  let next: string | undefined;
  do {
    const answer = await connection.request({ method: "GET", path: apiPath, query: { limit: "500", ...(next ? { continue: next } : {}) } });
    expectSuccess(answer, what);
    const page = answer.body as { items?: unknown[]; metadata?: { continue?: string } };
    items.push(...(page.items ?? []));
    next = page.metadata?.continue || undefined;
  } while (next !== undefined);
  return items;
}

/** `work` on each item, at most `limit` at a time, results in the items' order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
