/** kubeconfig files as kubectl reads them (client-go/tools/clientcmd), YAML or JSON, in Web APIs only (Workers get it from a secret). */
import { parseDocument, type Tags } from "yaml";
import * as z from "zod/mini";
import "../zod-english.ts";

/** client-go refuses a name given twice in any named list ("duplicate name ... in list") rather than let one win. */
function uniqueNames(payload: z.core.ParsePayload<{ name: string }[]>): void {
  const seen = new Set<string>();
  for (const { name } of payload.value) {
    if (seen.has(name)) {
      payload.issues.push({
        code: "custom",
        input: payload.value,
        message: `the name "${name}" is defined more than once (kubectl refuses the file too)`,
      });
    }
    seen.add(name);
  }
}

const text = z.nullish(z.string());
const flag = z.nullish(z.boolean());
const name = z.string().check(z.minLength(1));
const extensions = z.nullish(z.array(z.object({ name: z.string(), extension: z.unknown() })).check(uniqueNames));

const clusterSchema = z.looseObject({
  server: text,
  "certificate-authority": text,
  "certificate-authority-data": text,
  "tls-server-name": text,
  "insecure-skip-tls-verify": flag,
  "proxy-url": text,
  "disable-compression": flag,
  extensions,
});

const userSchema = z.looseObject({
  token: text,
  tokenFile: text,
  "client-certificate": text,
  "client-certificate-data": text,
  "client-key": text,
  "client-key-data": text,
  exec: z.optional(z.unknown()),
  "auth-provider": z.optional(z.unknown()),
  username: text,
  password: text,
  as: text,
  extensions,
});

const contextSchema = z.looseObject({ cluster: text, user: text, namespace: text, extensions });

const kubeconfigSchema = z.looseObject({
  clusters: z.nullish(z.array(z.object({ name, cluster: z.nullish(clusterSchema) })).check(uniqueNames)),
  users: z.nullish(z.array(z.object({ name, user: z.nullish(userSchema) })).check(uniqueNames)),
  contexts: z.nullish(z.array(z.object({ name, context: z.nullish(contextSchema) })).check(uniqueNames)),
  "current-context": text,
  preferences: z.nullish(z.looseObject({ extensions })),
  extensions,
});

export type RawCluster = z.infer<typeof clusterSchema>;
export type RawUser = z.infer<typeof userSchema>;

/** One parsed (or merged) kubeconfig; entries keep the file they came from, for messages. */
export interface Kubeconfig {
  clusters: Map<string, { cluster: RawCluster; source: string }>;
  users: Map<string, { user: RawUser; source: string }>;
  contexts: Map<string, { context: z.infer<typeof contextSchema>; source: string }>;
  currentContext?: string | undefined;
}

/** `entry` with the paths kubectl resolves against the kubeconfig's folder resolved: `exec.command` only when it names a path, not a PATH lookup. */
function resolvePaths<T extends RawCluster | RawUser>(entry: T, resolvePath: (path: string) => string): T {
  const resolved: Record<string, unknown> = { ...entry };
  for (const key of ["certificate-authority", "tokenFile", "client-certificate", "client-key"]) {
    const value = resolved[key];
    if (typeof value === "string" && value !== "") resolved[key] = resolvePath(value);
  }
  const exec = resolved.exec as { command?: unknown } | null | undefined;
  if (exec && typeof exec.command === "string" && /[/\\]/.test(exec.command)) {
    resolved.exec = { ...exec, command: resolvePath(exec.command) };
  }
  return resolved as T;
}

/**
 * Parses one kubeconfig (YAML or JSON); an empty document is an empty kubeconfig, as for kubectl. `source` names the
 * file in problems ("the KUBECONFIG secret", a path); `resolvePath` makes relative paths relative to its folder (Node).
 * @returns the config, or every problem found, each naming `source` and never the file's content.
 */
export function parseKubeconfig(
  text: string,
  options: { source: string; resolvePath?: (path: string) => string },
): { config?: Kubeconfig; problems: string[] } {
  const { source, resolvePath = (path: string) => path } = options;
  const read = readKubeconfigYaml(text);
  if ("problem" in read) return { problems: [`${source}: ${read.problem}`] };
  const parsed = kubeconfigSchema.safeParse(read.document ?? {});
  if (!parsed.success) {
    return {
      problems: parsed.error.issues.map(
        (issue) => `${source}: ${issue.path.join(".") || "document"}: ${issue.message}`,
      ),
    };
  }
  const { clusters, users, contexts } = parsed.data;
  const config: Kubeconfig = {
    clusters: new Map(
      clusters?.map(({ name, cluster }) => [name, { cluster: resolvePaths(cluster ?? {}, resolvePath), source }]),
    ),
    users: new Map(users?.map(({ name, user }) => [name, { user: resolvePaths(user ?? {}, resolvePath), source }])),
    contexts: new Map(contexts?.map(({ name, context }) => [name, { context: context ?? {}, source }])),
  };
  if (parsed.data["current-context"]) config.currentContext = parsed.data["current-context"];
  return { config, problems: [] };
}

/** Merges in `KUBECONFIG` order as client-go does: the first file to define a name wins it whole, the first non-empty `current-context` wins. */
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

/** YAML 1.1 as go-yaml v2 resolves it into the untyped values sigs.k8s.io/yaml decodes: a timestamp stays a string, `1:30` is no base-60 number. */
function goYamlTags(tags: Tags): Tags {
  return tags.filter(
    (tag) => typeof tag === "string" || (tag.tag !== "tag:yaml.org,2002:timestamp" && tag.format !== "TIME"),
  );
}

/**
 * The document (null for an empty one), read as client-go reads it: go-yaml v2, a YAML 1.1 reader, so merge keys are
 * honoured and `yes`/`no`/`on`/`off` are booleans (which the schema refuses where kubectl would too); where the two
 * readers are known to differ otherwise, as go-yaml or refused. Or why it cannot be read, never quoting the text.
 */
function readKubeconfigYaml(text: string): { document: unknown } | { problem: string } {
  if (OTHER_LINE_BREAKS.test(text)) {
    return {
      problem:
        "holds a NEL, LS or PS character, which kubectl reads as a line break; escape it in a double-quoted string",
    };
  }
  // A lone CR is a line break to go-yaml as to YAML 1.2, but the `yaml` package keeps a trailing one in the value.
  const document = parseDocument(text.replace(/\r\n?/g, "\n"), { version: "1.1", merge: true, customTags: goYamlTags });
  const [error] = [...document.errors, ...document.warnings];
  // Its code and where, not its message: that quotes the offending line, which may hold a token.
  const at = error?.linePos?.[0];
  if (error !== undefined)
    return { problem: `not valid YAML (${error.code}${at ? ` at line ${at.line}, column ${at.col}` : ""})` };
  // go-yaml v2 refuses any other %YAML directive ("found incompatible YAML document").
  if (document.directives?.yaml.version !== "1.1")
    return { problem: "declares a YAML version other than 1.1, which kubectl refuses" };
  try {
    return { document: document.toJS() };
  } catch (error) {
    // A merge key that names no mapping, or too many aliases: the messages are the library's own, without content.
    return { problem: `not valid YAML (${(error as Error).message})` };
  }
}
