/** CLOUD_TOKEN's source and its variables (each cloud's reader: shared/credentials/clouds), read by `gmsa-webhooks token` too; secrets are never echoed. */
import type { CloudTokenSettings } from "../credentials/cloud-token-source.ts";
import {
  CLOUD_TOKENS,
  CLOUDS,
  findCloud,
  type CloudReadContext,
  type CloudTokenKind,
} from "../credentials/clouds/index.ts";
import { Reader, type Bindings } from "./reader.ts";
import type { VariableName } from "./variables.ts";

/**
 * Reads the `kind` source's variables from `env`, naming in problems by its flag a variable in `flags` (the CLI's
 * `--region` for EKS_REGION). The settings are undefined when a required variable is missing.
 */
export function readCloudTokenSettings(
  env: Bindings,
  kind: CloudTokenKind,
  flags: Partial<Record<VariableName, string>> = {},
): { settings: CloudTokenSettings | undefined; problems: string[] } {
  const problems: string[] = [];
  const read = new Reader(env, problems);
  const cloud = findCloud(kind);
  const label = (name: VariableName): string => flags[name] ?? name;
  const context: CloudReadContext = {
    read,
    label,
    first: (...names) => {
      for (const name of names) {
        const value = read.optional(name);
        if (value === undefined) continue;
        const [format, rule] = cloud.formats[name] ?? [];
        if (format !== undefined && !format.test(value))
          problems.push(`${label(name)} ${JSON.stringify(value)} is not ${rule}`);
        return value;
      }
      return undefined;
    },
    requireSet: (names, problem) => {
      const unset = names.filter((name) => read.optional(name) === undefined);
      if (unset.length > 0) problems.push(problem(`${unset.join(" and ")} not set`));
    },
  };
  return { settings: cloud.read(context), problems };
}

/** Reads CLOUD_TOKEN and its source's variables, problems prefixed `CLOUD_TOKEN=<kind>:`; select-token-source.ts judges the runtime. */
export function readCloudToken(read: Reader): CloudTokenSettings | undefined {
  const selected = read.optional("CLOUD_TOKEN");
  const kind = CLOUD_TOKENS.find((candidate) => candidate === selected);
  if (selected !== undefined && kind === undefined) {
    read.problem("CLOUD_TOKEN", `must be one of ${CLOUD_TOKENS.join(", ")}`, selected);
    return undefined;
  }
  const own = kind === undefined ? [] : findCloud(kind).variables;
  const others = new Set(CLOUDS.flatMap((cloud) => cloud.variables).filter((name) => !own.includes(name)));
  for (const name of others) {
    if (read.optional(name) === undefined) continue;
    read.problems.push(
      kind === undefined
        ? `${name} is set but CLOUD_TOKEN is not: set CLOUD_TOKEN or unset ${name}`
        : `${name} is set but CLOUD_TOKEN is "${kind}": unset it`,
    );
  }
  if (kind === undefined) return undefined;
  const { settings, problems } = readCloudTokenSettings(read.env, kind);
  read.problems.push(...problems.map((problem) => `CLOUD_TOKEN=${kind}: ${problem}`));
  return settings;
}
