import { CLOUD_TOKENS, readCloudTokenSettings, type CloudTokenKind, type VariableName } from "../../shared/config/index.ts";
import { createCloudTokenSource } from "../../shared/credentials/cloud-token-source.ts";
import { EXEC_API_V1, EXEC_API_VERSIONS, type ExecApiVersion } from "../../shared/credentials/exec-config.ts";
import { isTokenCredential, type TokenSource } from "../../shared/credentials/token-source.ts";
import { AdmissionError } from "../../shared/errors.ts";
import { parseJson } from "../../shared/json.ts";
import { answerUsage, EXIT_INVALID, EXIT_OK, parseStrictArgs, programOf, type ArgsResult, type CliIo } from "./io.ts";
import { TOKEN_USAGE } from "./usage.ts";


type Env = Readonly<Record<string, string | undefined>>;
type Variables = Partial<Record<VariableName, string>>;

/** Each provider's flags, by the CLOUD_TOKEN variable each stands for (a flag given replaces it). */
const PROVIDER_FLAGS: Record<CloudTokenKind, Record<string, VariableName>> = {
  eks: { cluster: "EKS_CLUSTER_NAME", region: "EKS_REGION" },
  aks: { "client-id": "AKS_CLIENT_ID", "server-id": "AKS_SERVER_ID" },
  gke: {},
};

/** The `token` command line, checked: the provider and the variables its flags set (the environment fills the rest). */
export type TokenArgs = { help: true } | { help: false; provider: CloudTokenKind; variables: Variables };

/** Parses and checks `token` arguments (after the command word) in strict mode. */
export function parseTokenArgs(argv: readonly string[]): ArgsResult<TokenArgs> {
  const result = parseStrictArgs(argv, {
    cluster: { type: "string" },
    region: { type: "string" },
    "client-id": { type: "string" },
    "server-id": { type: "string" },
    help: { type: "boolean", short: "h", default: false },
  });
  if (!result.ok) return result;
  const { values, positionals } = result.parsed;
  if (values.help) return { ok: true, args: { help: true } };
  const provider = CLOUD_TOKENS.find((candidate) => candidate === positionals[0]);
  if (positionals.length !== 1 || provider === undefined) {
    const providers = CLOUD_TOKENS.join(", ");
    const got = positionals.map((word) => JSON.stringify(word)).join(" ");
    return { ok: false, errors: [positionals.length === 0 ? `missing provider: one of ${providers}` : `expected one provider (${providers}), got ${got}`] };
  }
  const errors: string[] = [];
  const variables: Variables = {};
  for (const [flag, value] of Object.entries(values)) {
    if (typeof value !== "string") continue;
    const name = PROVIDER_FLAGS[provider][flag];
    if (name === undefined) errors.push(`--${flag} does not apply to ${provider}`);
    else if (value === "") errors.push(`--${flag} is empty`);
    else variables[name] = value;
  }
  if (provider === "eks" && values.cluster === undefined) errors.push("eks needs --cluster <name>");
  return errors.length > 0 ? { ok: false, errors } : { ok: true, args: { help: false, provider, variables } };
}

/** The source for `provider`, read as CLOUD_TOKEN's from the environment with the flags laid over it, or every problem. */
function buildTokenSource(provider: CloudTokenKind, variables: Variables, env: Env): TokenSource | { problems: string[] } {
  const flags = Object.fromEntries(Object.entries(PROVIDER_FLAGS[provider]).map(([flag, name]) => [name, `--${flag}`]));
  const { settings, problems } = readCloudTokenSettings({ ...env, ...variables }, provider, flags);
  if (settings === undefined || problems.length > 0) return { problems };
  return createCloudTokenSource(settings, { shareInFlight: true });
}

/** The apiVersion kubectl asked for in KUBERNETES_EXEC_INFO (client-go refuses any other), else v1. */
export function requestedExecApiVersion(env: Env): ExecApiVersion {
  const info = parseJson(env["KUBERNETES_EXEC_INFO"] ?? "") as { apiVersion?: unknown } | null | undefined;
  return EXEC_API_VERSIONS.find((version) => version === info?.apiVersion) ?? EXEC_API_V1;
}

/** Whole seconds, `2030-01-01T00:14:00Z`, as `aws eks get-token` prints it. */
function rfc3339Seconds(timestamp: string): string {
  return new Date(Math.floor(Date.parse(timestamp) / 1000) * 1000).toISOString().replace(/\.000Z$/, "Z");
}

/** A failure's message when it is ours (written never to hold a secret); otherwise only its kind. */
function describeFailure(error: unknown): string {
  if (error instanceof AdmissionError || error instanceof TypeError) return error.message;
  return `unexpected failure (${error instanceof Error ? error.name : typeof error})`;
}

/**
 * `gmsa-webhooks token eks|aks|gke`: a kubeconfig exec plugin printing an ExecCredential with a cloud token.
 * Resolves to EXIT_OK, EXIT_INVALID (1: no credentials, or the cloud refused) or EXIT_USAGE (2). The token goes
 * to stdout only; stderr never holds a key, token or session token.
 */
export async function runTokenCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseTokenArgs(argv);
  if (!parsed.ok || parsed.args.help) return answerUsage("token", parsed, TOKEN_USAGE, io);
  const { provider, variables } = parsed.args;
  const prefix = `${programOf(io)} token ${provider}`;
  try {
    const source = buildTokenSource(provider, variables, io.env);
    if ("problems" in source) {
      for (const problem of source.problems) io.stderr(`${prefix}: ${problem}\n`);
      return EXIT_INVALID;
    }
    const credential = await source.getCredential();
    if (!isTokenCredential(credential) || credential.expirationTimestamp === undefined) {
      throw new TypeError("the source returned no token with an expiry");
    }
    const execCredential = {
      apiVersion: requestedExecApiVersion(io.env),
      kind: "ExecCredential",
      status: { expirationTimestamp: rfc3339Seconds(credential.expirationTimestamp), token: credential.token },
    };
    io.stdout(`${JSON.stringify(execCredential)}\n`);
    return EXIT_OK;
  } catch (error) {
    io.stderr(`${prefix}: ${describeFailure(error)}\n`);
    return EXIT_INVALID;
  }
}
