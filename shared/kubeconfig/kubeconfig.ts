/**
 * kubeconfig files as kubectl reads them (k8s.io/client-go/tools/clientcmd), YAML or JSON, in Web APIs only (the
 * Workers build gets the text from a secret): the text read as YAML 1.1, the schema checked, a repeated name in one
 * list refused, relative paths resolved against the file's folder, and a `KUBECONFIG` list merged where the first
 * file to set a name or `current-context` wins.
 */
import { parseDocument, type Tags, type YAMLError } from "yaml";
import * as z from "zod/mini";
import "../zod-english.ts";

/** client-go refuses a name given twice in any named list ("duplicate name ... in list") rather than let one win. */
function uniqueNames(payload: z.core.ParsePayload<{ name: string }[]>): void {
  const seen = new Set<string>();
  for (const { name } of payload.value) {
    if (seen.has(name)) {
      payload.issues.push({ code: "custom", input: payload.value, message: `the name "${name}" is defined more than once (kubectl refuses the file too)` });
    }
    seen.add(name);
  }
}

const extensionsSchema = z.nullish(z.array(z.object({ name: z.string(), extension: z.unknown() })).check(uniqueNames));

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

const contextSchema = z.looseObject({ cluster: z.nullish(z.string()), user: z.nullish(z.string()), namespace: z.nullish(z.string()), extensions: extensionsSchema });

const kubeconfigSchema = z.looseObject({
  clusters: z.nullish(z.array(z.object({ name: z.string().check(z.minLength(1)), cluster: z.nullish(clusterSchema) })).check(uniqueNames)),
  users: z.nullish(z.array(z.object({ name: z.string().check(z.minLength(1)), user: z.nullish(userSchema) })).check(uniqueNames)),
  contexts: z.nullish(z.array(z.object({ name: z.string().check(z.minLength(1)), context: z.nullish(contextSchema) })).check(uniqueNames)),
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
 * Parses one kubeconfig (YAML or JSON). An empty document is an empty kubeconfig, as for kubectl.
 * @returns the config, or every problem found, each naming `options.source` and never the file's content.
 */
export function parseKubeconfig(text: string, options: ParseKubeconfigOptions): { config?: Kubeconfig; problems: string[] } {
  const { source } = options;
  const resolvePath = options.resolvePath ?? ((entry: string) => entry);
  const read = readKubeconfigYaml(text);
  if ("problem" in read) return { problems: [`${source}: ${read.problem}`] };
  const parsed = kubeconfigSchema.safeParse(read.document ?? {});
  if (!parsed.success) {
    return { problems: parsed.error.issues.map((issue) => `${source}: ${issue.path.join(".") || "document"}: ${issue.message}`) };
  }
  const config: Kubeconfig = { clusters: new Map(), users: new Map(), contexts: new Map() };
  for (const { name, cluster } of parsed.data.clusters ?? []) {
    const ca = cluster?.["certificate-authority"];
    config.clusters.set(name, { cluster: { ...cluster, ...(ca ? { "certificate-authority": resolvePath(ca) } : {}) }, source });
  }
  for (const { name, user } of parsed.data.users ?? []) config.users.set(name, { user: resolveUserPaths(user ?? {}, resolvePath), source });
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

/** go-yaml reads NEL, LS and PS as line breaks (YAML 1.1), `yaml` does not (YAML 1.2 section 5.4): refused. */
const OTHER_LINE_BREAKS = /[\u0085\u2028\u2029]/;

/**
 * YAML 1.1 as go-yaml v2 resolves it: a timestamp stays a string (go-yaml keeps it one for an untyped value, which is
 * what sigs.k8s.io/yaml decodes into) and `1:30` is not a base-60 number.
 */
function goYamlTags(tags: Tags): Tags {
  return tags.filter((tag) => typeof tag === "string" || (tag.tag !== "tag:yaml.org,2002:timestamp" && tag.format !== "TIME"));
}

/**
 * The document (null for an empty one), read as client-go reads it: go-yaml v2, a YAML 1.1 reader, so merge keys are
 * honoured and `yes`/`no`/`on`/`off` are booleans (which the schema refuses where kubectl would too); where the two
 * readers are known to differ otherwise, as go-yaml or refused. Or why it cannot be read, never quoting the text.
 */
function readKubeconfigYaml(text: string): { document: unknown } | { problem: string } {
  if (OTHER_LINE_BREAKS.test(text)) {
    return { problem: "holds a NEL, LS or PS character, which kubectl reads as a line break; escape it in a double-quoted string" };
  }
  // A lone CR is a line break to go-yaml as to YAML 1.2, but the `yaml` package keeps a trailing one in the value.
  const document = parseDocument(text.replace(/\r\n?/g, "\n"), { version: "1.1", merge: true, customTags: goYamlTags });
  const [error] = [...document.errors, ...document.warnings];
  if (error !== undefined) return { problem: `not valid YAML (${describe(error)})` };
  // go-yaml v2 refuses any other %YAML directive ("found incompatible YAML document").
  if (document.directives?.yaml.version !== "1.1") return { problem: "declares a YAML version other than 1.1, which kubectl refuses" };
  try {
    return { document: document.toJS() };
  } catch (error) {
    // A merge key that names no mapping, or too many aliases: the messages are the library's own, without content.
    return { problem: `not valid YAML (${(error as Error).message})` };
  }
}

/** The error's code and where it is, not its message: that quotes the offending line, which may hold a token. */
function describe(error: YAMLError): string {
  const at = error.linePos?.[0];
  return at === undefined ? error.code : `${error.code} at line ${at.line}, column ${at.col}`;
}
