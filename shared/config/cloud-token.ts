/** CLOUD_TOKEN's eks, aks or gke source and its variables, read by `gmsa-webhooks token` too; secrets are never echoed. */
import type { CloudTokenSettings } from "../credentials/cloud-token-source.ts";
import { Reader, type Bindings } from "./reader.ts";
import type { VariableName } from "./variables.ts";

/** The clouds whose own identity can be a token source (CLOUD_TOKEN, `gmsa-webhooks token <kind>`). */
export const CLOUD_TOKENS = ["eks", "aks", "gke"] as const satisfies readonly CloudTokenSettings["kind"][];
export type CloudTokenKind = (typeof CLOUD_TOKENS)[number];

/** The variables only we read per source (not the platforms' own, set anyway): setting one the chosen source ignores is a problem. */
const OWN_VARIABLES: Record<CloudTokenKind, readonly VariableName[]> = {
  eks: ["EKS_CLUSTER_NAME", "EKS_REGION"],
  aks: ["AKS_CLIENT_ID", "AKS_SERVER_ID"],
  gke: ["GKE_SERVICE_ACCOUNT"],
};

function isHttpUrl(text: string): boolean {
  try {
    return ["http:", "https:"].includes(new URL(text).protocol);
  } catch {
    return false;
  }
}

const AWS_REGION: [RegExp, string] = [/^[a-z]{2}(-[a-z]+)+-\d{1,2}$/, "an AWS region name (like eu-west-1)"];

/** What a value must be, as it becomes part of a URL (the AWS region of a host name), and how a problem says so. */
const FORMATS: Partial<Record<VariableName, [{ test: (value: string) => boolean }, string]>> = {
  // Outposts cluster ids (UUIDs) fit too.
  EKS_CLUSTER_NAME: [
    /^[0-9A-Za-z][0-9A-Za-z_-]{0,99}$/,
    "an EKS cluster name (1 to 100 letters, digits, '-' and '_', starting with a letter or digit)",
  ],
  EKS_REGION: AWS_REGION,
  AWS_REGION,
  AWS_DEFAULT_REGION: AWS_REGION,
  IDENTITY_ENDPOINT: [{ test: isHttpUrl }, "an http(s) URL"],
  GCE_METADATA_HOST: [/^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/, "host or host:port"],
  GKE_SERVICE_ACCOUNT: [/^(?:default|[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+)$/, "default or a service account's email"],
};

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
  const label = (name: VariableName): string => flags[name] ?? name;
  /** The first of `names` that is set, a problem recorded when it lacks its format. */
  const first = (...names: VariableName[]): string | undefined => {
    for (const name of names) {
      const value = read.optional(name);
      if (value === undefined) continue;
      const [format, rule] = FORMATS[name] ?? [];
      if (format !== undefined && !format.test(value))
        problems.push(`${label(name)} ${JSON.stringify(value)} is not ${rule}`);
      return value;
    }
    return undefined;
  };
  /** Records `problem` with "A and B not set" for those of `names` that are unset. */
  const requireSet = (names: VariableName[], problem: (unset: string) => string): void => {
    const unset = names.filter((name) => read.optional(name) === undefined);
    if (unset.length > 0) problems.push(problem(`${unset.join(" and ")} not set`));
  };
  let settings: CloudTokenSettings | undefined;
  if (kind === "eks") {
    const cluster = first("EKS_CLUSTER_NAME");
    if (cluster === undefined) problems.push(`${label("EKS_CLUSTER_NAME")} not set (the EKS cluster's name)`);
    const region = first("EKS_REGION", "AWS_REGION", "AWS_DEFAULT_REGION");
    const flag = label("EKS_REGION");
    if (region === undefined)
      problems.push(`no AWS region: ${flag === "EKS_REGION" ? "set EKS_REGION or" : `pass ${flag} or set`} AWS_REGION`);
    requireSet(
      ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"],
      (unset) => `no AWS credentials in the environment: ${unset} (only static keys are read, as Lambda provides them)`,
    );
    const accessKeyId = read.optional("AWS_ACCESS_KEY_ID");
    const secretAccessKey = read.optional("AWS_SECRET_ACCESS_KEY");
    if (cluster !== undefined && region !== undefined && accessKeyId !== undefined && secretAccessKey !== undefined) {
      settings = {
        kind,
        cluster,
        region,
        credentials: { accessKeyId, secretAccessKey, sessionToken: read.optional("AWS_SESSION_TOKEN") },
      };
    }
  } else if (kind === "aks") {
    requireSet(
      ["IDENTITY_ENDPOINT", "IDENTITY_HEADER"],
      (unset) =>
        `no managed identity endpoint: ${unset} (App Service and Azure Functions set them for an app with a managed identity)`,
    );
    const endpoint = first("IDENTITY_ENDPOINT");
    const identityHeader = read.optional("IDENTITY_HEADER");
    const clientId = first("AKS_CLIENT_ID", "AZURE_CLIENT_ID");
    if (endpoint !== undefined && identityHeader !== undefined)
      settings = { kind, endpoint, identityHeader, clientId, resource: read.text("AKS_SERVER_ID") };
  } else {
    const host = first("GCE_METADATA_HOST") ?? read.text("GCE_METADATA_HOST");
    settings = { kind, host, serviceAccount: first("GKE_SERVICE_ACCOUNT") ?? read.text("GKE_SERVICE_ACCOUNT") };
  }
  return { settings, problems };
}

/** Reads CLOUD_TOKEN and its source's variables, problems prefixed `CLOUD_TOKEN=<kind>:`; select-token-source.ts judges the runtime. */
export function readCloudToken(read: Reader): CloudTokenSettings | undefined {
  const selected = read.optional("CLOUD_TOKEN");
  const kind = CLOUD_TOKENS.find((candidate) => candidate === selected);
  if (selected !== undefined && kind === undefined) {
    read.problem("CLOUD_TOKEN", `must be one of ${CLOUD_TOKENS.join(", ")}`, selected);
    return undefined;
  }
  const own = kind === undefined ? [] : OWN_VARIABLES[kind];
  const others = new Set(
    Object.values(OWN_VARIABLES)
      .flat()
      .filter((name) => !own.includes(name)),
  );
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
