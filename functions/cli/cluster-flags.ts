/**
 * The global flags of the cluster commands, as kubectl spells them, parsed once for all; apart from the connection
 * (cluster.ts) so that the entry point reads them without loading the kube client.
 */
import type { ParseArgsOptionsConfig } from "node:util";
import { parseStrictArgs, type ArgsResult } from "./io.ts";

/** The flags every cluster command takes, as kubectl spells them. */
export const CLUSTER_OPTIONS = {
  kubeconfig: { type: "string" },
  context: { type: "string" },
  namespace: { type: "string", short: "n" },
  as: { type: "string" },
  "as-group": { type: "string", multiple: true },
  output: { type: "string", short: "o" },
  help: { type: "boolean", short: "h" },
} as const satisfies ParseArgsOptionsConfig;

/** How results are printed: human text (the default), or `-o json|yaml` for scripts. */
export type OutputFormat = "text" | "json" | "yaml";

/** The global flags, checked. */
export interface ClusterFlags {
  kubeconfig?: string | undefined;
  context?: string | undefined;
  namespace?: string | undefined;
  /** `--as`: the user the dry runs impersonate (and, in explain, the person asked about). */
  as?: string | undefined;
  asGroups: string[];
  output: OutputFormat;
  help: boolean;
}

/** A cluster command's parsed command line: the global flags, its own option values and its positionals. */
export interface ClusterArgs<O extends ParseArgsOptionsConfig> {
  flags: ClusterFlags;
  values: Record<keyof O, unknown>;
  positionals: string[];
}

/**
 * Parses a cluster command's arguments: {@link CLUSTER_OPTIONS} plus its `own` options, once, strictly.
 * @returns the flags, or every usage problem (EXIT_USAGE).
 */
export function parseClusterArgs<O extends ParseArgsOptionsConfig>(argv: readonly string[], own: O): ArgsResult<ClusterArgs<O>> {
  const parsed = parseStrictArgs(argv, { ...CLUSTER_OPTIONS, ...own });
  if (!parsed.ok) return parsed;
  const values = parsed.parsed.values as Record<string, unknown>;
  const errors: string[] = [];
  const text = (name: string): string | undefined => {
    const value = values[name] as string | undefined;
    if (value === "") errors.push(`--${name} must not be empty`);
    return value;
  };
  const output = (values.output as string | undefined) ?? "text";
  if (output !== "text" && output !== "json" && output !== "yaml") errors.push(`-o/--output must be json or yaml, got ${JSON.stringify(output)}`);
  const asGroups = (values["as-group"] as string[] | undefined) ?? [];
  const as = text("as");
  // kubectl refuses the same: groups alone would impersonate nobody.
  if (asGroups.length > 0 && as === undefined) errors.push("--as-group needs --as (the user to impersonate)");
  const flags: ClusterFlags = {
    kubeconfig: text("kubeconfig"),
    context: text("context"),
    namespace: text("namespace"),
    as,
    asGroups,
    output: output as OutputFormat,
    help: values.help === true,
  };
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, args: { flags, values: values as Record<keyof O, unknown>, positionals: parsed.parsed.positionals } };
}
