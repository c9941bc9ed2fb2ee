/**
 * kubeconfig documents as kubectl reads them, in Web APIs only: the schema, relative paths resolved against the
 * file's folder, a `KUBECONFIG` list merged where the first file to set a name or `current-context` wins (client-go
 * `clientcmd` loading rules). No YAML parser here: a JSON kubeconfig (`kubectl config view --flatten -o json`) or one
 * in plain block YAML (block-yaml.ts) is read with {@link parseKubeconfigWithoutParser}, so the Node server and the
 * function platforms load the parser (kubeconfig.ts) only for the rest of YAML.
 */
import * as z from "zod/mini";
import { findDuplicateKey } from "../policy/duplicate-keys.ts";
import { readBlockYaml } from "./block-yaml.ts";
import "../zod-english.ts";

const clusterSchema = z.looseObject({
  server: z.nullish(z.string()),
  "certificate-authority": z.nullish(z.string()),
  "certificate-authority-data": z.nullish(z.string()),
  "tls-server-name": z.nullish(z.string()),
  "insecure-skip-tls-verify": z.nullish(z.boolean()),
  "proxy-url": z.nullish(z.string()),
  "disable-compression": z.nullish(z.boolean()),
  extensions: z.nullish(z.array(z.object({ name: z.string(), extension: z.unknown() }))),
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
});

const contextSchema = z.looseObject({ cluster: z.nullish(z.string()), user: z.nullish(z.string()) });

const kubeconfigSchema = z.looseObject({
  clusters: z.nullish(z.array(z.object({ name: z.string().check(z.minLength(1)), cluster: z.nullish(clusterSchema) }))),
  users: z.nullish(z.array(z.object({ name: z.string().check(z.minLength(1)), user: z.nullish(userSchema) }))),
  contexts: z.nullish(z.array(z.object({ name: z.string().check(z.minLength(1)), context: z.nullish(contextSchema) }))),
  "current-context": z.nullish(z.string()),
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

/** A kubeconfig, or every problem found, each naming its source. */
export interface KubeconfigResult {
  config?: Kubeconfig;
  problems: string[];
}

/** Checks a parsed kubeconfig document and builds the {@link Kubeconfig}, paths resolved. */
export function buildKubeconfig(document: unknown, options: ParseKubeconfigOptions): KubeconfigResult {
  const { source, resolvePath } = options;
  const parsed = kubeconfigSchema.safeParse(document);
  if (!parsed.success) {
    return { problems: parsed.error.issues.map((issue) => `${source}: ${issue.path.join(".") || "document"}: ${issue.message}`) };
  }
  // Within one file a repeated name replaces the earlier entry, as client-go's list-to-map conversion does.
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
 * Reads a kubeconfig written as one JSON object with no repeated key, exactly as the YAML parser would (JSON is
 * YAML); undefined for anything else (YAML, other JSON, repeated keys, which the YAML parser refuses), which
 * kubeconfig.ts then parses.
 */
export function parseJsonKubeconfig(text: string, options: ParseKubeconfigOptions): KubeconfigResult | undefined {
  if (!/^\s*\{/.test(text)) return undefined;
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (findDuplicateKey(text).kind !== "unique") return undefined;
  return buildKubeconfig(document, options);
}

/** Merges kubeconfigs in `KUBECONFIG` order: the first to define a name or `current-context` wins. */
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

/**
 * Reads a kubeconfig in JSON ({@link parseJsonKubeconfig}) or in plain block YAML (block-yaml.ts) exactly as the YAML
 * parser would; undefined for any other text, which kubeconfig.ts then parses.
 */
export function parseKubeconfigWithoutParser(text: string, options: ParseKubeconfigOptions): KubeconfigResult | undefined {
  const json = parseJsonKubeconfig(text, options);
  if (json !== undefined) return json;
  const document = readBlockYaml(text);
  return document === undefined ? undefined : buildKubeconfig(document, options);
}
