/**
 * The cloud token section: CLOUD_TOKEN picks the eks, aks or gke source, each with its own variables, which
 * `gmsa-webhooks token` reads too (its flags laid over them). Secrets (AWS keys, IDENTITY_HEADER) are never echoed.
 */
import { AWS_REGION_PATTERN, CLOUD_TOKENS, EKS_CLUSTER_NAME_PATTERN, GCP_METADATA_HOST_PATTERN, GCP_SERVICE_ACCOUNT_PATTERN, type CloudTokenKind } from "../credentials/cloud-constants.ts";
import type { CloudTokenSettings } from "../credentials/cloud-token-source.ts";
import { Reader, type Bindings } from "./reader.ts";
import type { VariableName } from "./variables.ts";

export { CLOUD_TOKENS, type CloudTokenKind } from "../credentials/cloud-constants.ts";
export type { CloudTokenSettings } from "../credentials/cloud-token-source.ts";

/**
 * The variables only we read for each source; setting one the chosen source ignores is a problem. Not listed: what
 * the platforms set (AWS_*, IDENTITY_*, AZURE_CLIENT_ID, GCE_METADATA_HOST), there whether a source is chosen or not.
 */
const OWN_VARIABLES: Record<CloudTokenKind, readonly VariableName[]> = {
  eks: ["EKS_CLUSTER_NAME", "EKS_REGION"],
  aks: ["AKS_CLIENT_ID", "AKS_SERVER_ID"],
  gke: ["GKE_SERVICE_ACCOUNT"],
};

/** How messages name a variable: by the flag that set it (the CLI's `--region` for EKS_REGION), else by itself. */
type Label = (name: VariableName) => string;

/** The first of `names` that is set, with its value. */
function firstSet(read: Reader, names: readonly VariableName[]): [VariableName, string] | undefined {
  const name = names.find((candidate) => read.optional(candidate) !== undefined);
  return name === undefined ? undefined : [name, read.optional(name) ?? ""];
}

/** "A and B not set" for the names that are unset, or undefined when all are set. */
function unsetNames(read: Reader, names: readonly VariableName[]): string | undefined {
  const unset = names.filter((name) => read.optional(name) === undefined);
  return unset.length === 0 ? undefined : `${unset.join(" and ")} not set`;
}

function readEks(read: Reader, label: Label): CloudTokenSettings | undefined {
  const { problems } = read;
  const cluster = read.optional("EKS_CLUSTER_NAME");
  if (cluster === undefined) problems.push(`${label("EKS_CLUSTER_NAME")} not set (the EKS cluster's name)`);
  else if (!EKS_CLUSTER_NAME_PATTERN.test(cluster)) {
    problems.push(`${label("EKS_CLUSTER_NAME")} ${JSON.stringify(cluster)} is not an EKS cluster name (1 to 100 letters, digits, '-' and '_', starting with a letter or digit)`);
  }
  const region = firstSet(read, ["EKS_REGION", "AWS_REGION", "AWS_DEFAULT_REGION"]);
  if (region === undefined) {
    const flag = label("EKS_REGION");
    problems.push(`no AWS region: ${flag === "EKS_REGION" ? "set EKS_REGION or" : `pass ${flag} or set`} AWS_REGION`);
  } else if (!AWS_REGION_PATTERN.test(region[1])) {
    problems.push(`${label(region[0])} ${JSON.stringify(region[1])} is not an AWS region name (like eu-west-1)`);
  }
  const keys = unsetNames(read, ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"]);
  if (keys !== undefined) problems.push(`no AWS credentials in the environment: ${keys} (only static keys are read, as Lambda provides them)`);
  const accessKeyId = read.optional("AWS_ACCESS_KEY_ID");
  const secretAccessKey = read.optional("AWS_SECRET_ACCESS_KEY");
  if (cluster === undefined || region === undefined || accessKeyId === undefined || secretAccessKey === undefined) return undefined;
  const credentials = { accessKeyId, secretAccessKey, sessionToken: read.optional("AWS_SESSION_TOKEN") };
  return { kind: "eks", cluster, region: region[1], credentials };
}

function isHttpUrl(text: string): boolean {
  try {
    return ["http:", "https:"].includes(new URL(text).protocol);
  } catch {
    return false;
  }
}

function readAks(read: Reader): CloudTokenSettings | undefined {
  const unset = unsetNames(read, ["IDENTITY_ENDPOINT", "IDENTITY_HEADER"]);
  if (unset !== undefined) {
    read.problems.push(`no managed identity endpoint: ${unset} (App Service and Azure Functions set them for an app with a managed identity)`);
  }
  const endpoint = read.optional("IDENTITY_ENDPOINT");
  if (endpoint !== undefined && !isHttpUrl(endpoint)) read.problems.push(`IDENTITY_ENDPOINT ${JSON.stringify(endpoint)} is not an http(s) URL`);
  const identityHeader = read.optional("IDENTITY_HEADER");
  const clientId = firstSet(read, ["AKS_CLIENT_ID", "AZURE_CLIENT_ID"])?.[1];
  const resource = read.text("AKS_SERVER_ID");
  if (endpoint === undefined || identityHeader === undefined) return undefined;
  return { kind: "aks", endpoint, identityHeader, clientId, resource };
}

function readGke(read: Reader, label: Label): CloudTokenSettings {
  const host = read.text("GCE_METADATA_HOST");
  if (!GCP_METADATA_HOST_PATTERN.test(host)) read.problems.push(`GCE_METADATA_HOST ${JSON.stringify(host)} is not host or host:port`);
  const serviceAccount = read.text("GKE_SERVICE_ACCOUNT");
  if (!GCP_SERVICE_ACCOUNT_PATTERN.test(serviceAccount)) {
    read.problems.push(`${label("GKE_SERVICE_ACCOUNT")} ${JSON.stringify(serviceAccount)} is not default or a service account's email`);
  }
  return { kind: "gke", host, serviceAccount };
}

/**
 * Reads the variables of the `kind` source from `env`; `flags` names the variables the caller sets another way (the
 * CLI's `--region` for EKS_REGION), for messages.
 * @returns the settings (undefined when a required variable is missing) and every problem found, each a sentence
 *   that names the variable (or its flag) and never a secret's value.
 */
export function readCloudTokenSettings(
  env: Bindings,
  kind: CloudTokenKind,
  flags: Partial<Record<VariableName, string>> = {},
): { settings: CloudTokenSettings | undefined; problems: string[] } {
  const problems: string[] = [];
  const read = new Reader(env, problems);
  const label: Label = (name) => flags[name] ?? name;
  const settings = kind === "eks" ? readEks(read, label) : kind === "aks" ? readAks(read) : readGke(read, label);
  return { settings, problems };
}

/**
 * Reads CLOUD_TOKEN and its source's variables, recording every problem (prefixed `CLOUD_TOKEN=<kind>:`), also for a
 * variable only another source reads. Whether the kubeconfig user and the runtime allow it is select-token-source.ts's.
 */
export function readCloudToken(read: Reader): CloudTokenSettings | undefined {
  const selected = read.optional("CLOUD_TOKEN");
  const kind = CLOUD_TOKENS.find((candidate) => candidate === selected);
  if (selected !== undefined && kind === undefined) {
    read.problem("CLOUD_TOKEN", `must be one of ${CLOUD_TOKENS.join(", ")}`, selected);
    return undefined;
  }
  const own = kind === undefined ? [] : OWN_VARIABLES[kind];
  const others = new Set(Object.values(OWN_VARIABLES).flat().filter((name) => !own.includes(name)));
  for (const name of others) {
    if (read.optional(name) === undefined) continue;
    read.problems.push(kind === undefined ? `${name} is set but CLOUD_TOKEN is not: set CLOUD_TOKEN or unset ${name}` : `${name} is set but CLOUD_TOKEN is "${kind}": unset it`);
  }
  if (kind === undefined) return undefined;
  const { settings, problems } = readCloudTokenSettings(read.env, kind);
  read.problems.push(...problems.map((problem) => `CLOUD_TOKEN=${kind}: ${problem}`));
  return settings;
}
