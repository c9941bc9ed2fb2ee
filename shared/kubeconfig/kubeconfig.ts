/**
 * kubeconfig files as kubectl reads them (k8s.io/client-go/tools/clientcmd), YAML or JSON, in Web APIs only (the
 * Workers build gets the text from a secret): the text read by kubeconfig-yaml.ts, the schema checked, a repeated
 * name in one list refused, relative paths resolved against the file's folder, and a `KUBECONFIG` list merged where
 * the first file to set a name or `current-context` wins.
 */
import * as z from "zod/mini";
import { readKubeconfigYaml } from "./kubeconfig-yaml.ts";
import "../zod-english.ts";

const extensionsSchema = z.nullish(z.array(z.object({ name: z.string(), extension: z.unknown() })));

const clusterSchema = z.looseObject({
  server: z.nullish(z.string()),
  "certificate-authority": z.nullish(z.string()),
  "certificate-authority-data": z.nullish(z.string()),
  "tls-server-name": z.nullish(z.string()),
  "insecure-skip-tls-verify": z.nullish(z.boolean()),
  "proxy-url": z.nullish(z.string()),
  "disable-compression": z.nullish(z.boolean()),
  extensions: extensionsSchema,
});

const userSchema = z.looseObject({
  token: z.nullish(z.string()),
  tokenFile: z.nullish(z.string()),
  "client-certificate": z.nullish(z.string()),
  "client-certificate-data": z.nullish(z.string()),
  "client-key": z.nullish(z.string()),
  "client-key-data": z.nullish(z.string()),
  exec: z.optional(z.unknown()),
  "auth-provider": z.optional(z.unknown()),
  username: z.nullish(z.string()),
  password: z.nullish(z.string()),
  as: z.nullish(z.string()),
  extensions: extensionsSchema,
});

const contextSchema = z.looseObject({ cluster: z.nullish(z.string()), user: z.nullish(z.string()), extensions: extensionsSchema });

const kubeconfigSchema = z.looseObject({
  clusters: z.nullish(z.array(z.object({ name: z.string().check(z.minLength(1)), cluster: z.nullish(clusterSchema) }))),
  users: z.nullish(z.array(z.object({ name: z.string().check(z.minLength(1)), user: z.nullish(userSchema) }))),
  contexts: z.nullish(z.array(z.object({ name: z.string().check(z.minLength(1)), context: z.nullish(contextSchema) }))),
  "current-context": z.nullish(z.string()),
  preferences: z.nullish(z.looseObject({ extensions: extensionsSchema })),
  extensions: extensionsSchema,
});

export type RawCluster = z.infer<typeof clusterSchema>;
export type RawUser = z.infer<typeof userSchema>;
export type RawContext = z.infer<typeof contextSchema>;

/** One parsed (or merged) kubeconfig; entries keep the file they came from, for messages. */
export interface Kubeconfig {
  clusters: Map<string, { cluster: RawCluster; source: string }>;
  users: Map<string, { user: RawUser; source: string }>;
  contexts: Map<string, { context: RawContext; source: string }>;
  currentContext?: string | undefined;
}

/** Options of {@link parseKubeconfig}. */
export interface ParseKubeconfigOptions {
  /** Names the file in problems ("the KUBECONFIG secret", a path). */
  source: string;
  /** Turns a relative path into one relative to the file's folder (Node). Without it, paths stay as written. */
  resolvePath?: (path: string) => string;
}

/** A kubeconfig, or every problem found, each naming its source. */
export interface KubeconfigResult {
  config?: Kubeconfig;
  problems: string[];
}

/** A path kubectl resolves against the kubeconfig's folder: `exec.command` only when it names a path, not a PATH lookup. */
function resolveUserPaths(user: RawUser, resolvePath: (path: string) => string): RawUser {
  const resolved: RawUser = { ...user };
  for (const key of ["tokenFile", "client-certificate", "client-key"] as const) {
    const value = resolved[key];
    if (value) resolved[key] = resolvePath(value);
  }
  const exec = resolved.exec as { command?: unknown } | null | undefined;
  if (exec && typeof exec.command === "string" && /[/\\]/.test(exec.command)) {
    resolved.exec = { ...exec, command: resolvePath(exec.command) };
  }
  return resolved;
}

/**
 * The names given twice in `list`. client-go refuses the file ("duplicate name ... in list") rather than let one
 * entry win, in every named list: clusters, users, contexts and each `extensions`.
 */
function repeatedNames(list: readonly { name: string }[] | null | undefined, where: string): string[] {
  const seen = new Set<string>();
  const problems: string[] = [];
  for (const { name } of list ?? []) {
    if (seen.has(name)) problems.push(`${where}: the name "${name}" is defined more than once (kubectl refuses the file too)`);
    seen.add(name);
  }
  return problems;
}

/** Every repeated name in the document, each naming its list. */
function findRepeatedNames(data: z.infer<typeof kubeconfigSchema>, source: string): string[] {
  const problems = [
    ...repeatedNames(data.clusters, `${source}: clusters`),
    ...repeatedNames(data.users, `${source}: users`),
    ...repeatedNames(data.contexts, `${source}: contexts`),
    ...repeatedNames(data.extensions, `${source}: extensions`),
    ...repeatedNames(data.preferences?.extensions, `${source}: preferences.extensions`),
  ];
  for (const { name, cluster } of data.clusters ?? []) problems.push(...repeatedNames(cluster?.extensions, `${source}: cluster "${name}": extensions`));
  for (const { name, user } of data.users ?? []) problems.push(...repeatedNames(user?.extensions, `${source}: user "${name}": extensions`));
  for (const { name, context } of data.contexts ?? []) problems.push(...repeatedNames(context?.extensions, `${source}: context "${name}": extensions`));
  return problems;
}

/**
 * Parses one kubeconfig (YAML or JSON). An empty document is an empty kubeconfig, as for kubectl.
 * @returns the config, or every problem found, each naming `options.source` and never the file's content.
 */
export function parseKubeconfig(text: string, options: ParseKubeconfigOptions): KubeconfigResult {
  const { source, resolvePath } = options;
  const read = readKubeconfigYaml(text);
  if ("problem" in read) return { problems: [`${source}: ${read.problem}`] };
  const parsed = kubeconfigSchema.safeParse(read.document ?? {});
  if (!parsed.success) {
    return { problems: parsed.error.issues.map((issue) => `${source}: ${issue.path.join(".") || "document"}: ${issue.message}`) };
  }
  const problems = findRepeatedNames(parsed.data, source);
  if (problems.length > 0) return { problems };
  const config: Kubeconfig = { clusters: new Map(), users: new Map(), contexts: new Map() };
  for (const { name, cluster } of parsed.data.clusters ?? []) {
    const entry: RawCluster = { ...(cluster ?? {}) };
    const ca = entry["certificate-authority"];
    if (ca && resolvePath) entry["certificate-authority"] = resolvePath(ca);
    config.clusters.set(name, { cluster: entry, source });
  }
  for (const { name, user } of parsed.data.users ?? []) {
    const entry = resolvePath ? resolveUserPaths(user ?? {}, resolvePath) : { ...(user ?? {}) };
    config.users.set(name, { user: entry, source });
  }
  for (const { name, context } of parsed.data.contexts ?? []) {
    config.contexts.set(name, { context: context ?? {}, source });
  }
  const current = parsed.data["current-context"];
  if (current) config.currentContext = current;
  return { config, problems: [] };
}

/**
 * Merges kubeconfigs in `KUBECONFIG` order as client-go's loading rules do: the first file to define a name wins it
 * whole (entries are not merged field by field), and the first non-empty `current-context` wins.
 */
export function mergeKubeconfigs(configs: readonly Kubeconfig[]): Kubeconfig {
  const merged: Kubeconfig = { clusters: new Map(), users: new Map(), contexts: new Map() };
  for (const config of configs) {
    for (const key of ["clusters", "users", "contexts"] as const) {
      const target = merged[key] as Map<string, unknown>;
      for (const [name, entry] of config[key]) if (!target.has(name)) target.set(name, entry);
    }
    merged.currentContext ??= config.currentContext;
  }
  return merged;
}
