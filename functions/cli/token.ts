import { readCloudTokenSettings, type VariableName } from "../../shared/config/index.ts";
import { createCloudTokenSource } from "../../shared/credentials/cloud-token-source.ts";
import { EXEC_API_VERSIONS, type ExecApiVersion } from "../../shared/credentials/exec-config.ts";
import { isTokenCredential, type TokenSource } from "../../shared/credentials/token-source.ts";
import { AdmissionError } from "../../shared/errors.ts";
import { answerUsage, EXIT_INVALID, EXIT_OK, type CliIo } from "./io.ts";
import { parseTokenArgs, type TokenArgs } from "./token-args.ts";
import { TOKEN_USAGE } from "./usage.ts";

const PREFIX = "gmsa-webhooks token";

/** What tests replace; the bin uses the global fetch and clock. */
export interface TokenCommandDeps {
  fetch?: typeof fetch;
  now?: () => number;
}

type Env = Readonly<Record<string, string | undefined>>;

/** The provider's flags by the variable each stands for, with the value given (undefined: not given). */
function flagValues(args: Exclude<TokenArgs, { help: true }>): Partial<Record<VariableName, [flag: string, value: string | undefined]>> {
  switch (args.provider) {
    case "eks":
      return { EKS_CLUSTER_NAME: ["--cluster", args.cluster], EKS_REGION: ["--region", args.region] };
    case "aks":
      return { AKS_CLIENT_ID: ["--client-id", args.clientId], AKS_SERVER_ID: ["--server-id", args.serverId] };
    case "gke":
      return {};
  }
}

/**
 * The source for `args`, read with the functions' own configuration module (the variables and defaults of
 * CLOUD_TOKEN) from the environment with the flags given laid over it, or every problem found (never a secret).
 */
function buildTokenSource(args: Exclude<TokenArgs, { help: true }>, env: Env, deps: TokenCommandDeps): TokenSource | { problems: string[] } {
  const bindings: Record<string, string | undefined> = { ...env };
  const flags: Partial<Record<VariableName, string>> = {};
  for (const [name, [flag, value]] of Object.entries(flagValues(args)) as [VariableName, [string, string | undefined]][]) {
    flags[name] = flag;
    if (value !== undefined) bindings[name] = value;
  }
  const { settings, problems } = readCloudTokenSettings(bindings, args.provider, { flags });
  if (settings === undefined || problems.length > 0) return { problems };
  return createCloudTokenSource(settings, { shareInFlight: true, now: deps.now, fetch: deps.fetch });
}

/** The apiVersion kubectl asked for in KUBERNETES_EXEC_INFO (client-go refuses any other), else v1. */
export function requestedExecApiVersion(env: Env): ExecApiVersion {
  try {
    const info = JSON.parse(env["KUBERNETES_EXEC_INFO"] ?? "") as { apiVersion?: unknown };
    return EXEC_API_VERSIONS.find((version) => version === info.apiVersion) ?? "client.authentication.k8s.io/v1";
  } catch {
    return "client.authentication.k8s.io/v1";
  }
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
export async function runTokenCommand(argv: readonly string[], io: CliIo, deps: TokenCommandDeps = {}): Promise<number> {
  const parsed = parseTokenArgs(argv);
  if (!parsed.ok || parsed.args.help) return answerUsage("token", parsed, TOKEN_USAGE, io);
  const { args } = parsed;
  const prefix = `${PREFIX} ${args.provider}`;
  try {
    const source = buildTokenSource(args, io.env, deps);
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
