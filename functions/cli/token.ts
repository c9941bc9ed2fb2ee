import { createAzureManagedIdentityTokenSource } from "../../shared/credentials/azure-managed-identity.ts";
import { createEksTokenSource } from "../../shared/credentials/eks.ts";
import { EXEC_API_VERSIONS, type ExecApiVersion } from "../../shared/credentials/exec-config.ts";
import { createGcpMetadataTokenSource } from "../../shared/credentials/gcp-metadata.ts";
import { isTokenCredential, type TokenSource } from "../../shared/credentials/token-source.ts";
import { AdmissionError } from "../../shared/errors.ts";
import { EXIT_INVALID, EXIT_OK, EXIT_USAGE, type CliIo } from "./io.ts";
import { parseTokenArgs, type TokenArgs } from "./token-args.ts";
import { TOKEN_USAGE } from "./usage.ts";

const PREFIX = "gmsa-webhooks token";

/** What tests replace; the bin uses the global fetch and clock. */
export interface TokenCommandDeps {
  fetch?: typeof fetch;
  now?: () => number;
}

type Env = Readonly<Record<string, string | undefined>>;

/** An environment variable, treating empty as unset (as the AWS and Azure SDKs do). */
function read(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === "" ? undefined : value;
}

/** "A and B not set" for the names whose value is undefined, or undefined when all are set. */
function unsetNames(values: Record<string, string | undefined>): string | undefined {
  const unset = Object.keys(values).filter((name) => values[name] === undefined);
  return unset.length === 0 ? undefined : `${unset.join(" and ")} not set`;
}

/** The source for `args`, from the command line and the environment, or what is missing (never a value). */
function buildTokenSource(args: Exclude<TokenArgs, { help: true }>, env: Env, deps: TokenCommandDeps): TokenSource | { missing: string } {
  const common = { shareInFlight: true, now: deps.now };
  switch (args.provider) {
    case "eks": {
      const accessKeyId = read(env, "AWS_ACCESS_KEY_ID");
      const secretAccessKey = read(env, "AWS_SECRET_ACCESS_KEY");
      const sessionToken = read(env, "AWS_SESSION_TOKEN");
      const region = args.region ?? read(env, "AWS_REGION") ?? read(env, "AWS_DEFAULT_REGION");
      if (accessKeyId === undefined || secretAccessKey === undefined) {
        const unset = unsetNames({ AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey });
        return { missing: `no AWS credentials in the environment: ${unset} (only static keys are read, as Lambda provides them)` };
      }
      if (region === undefined) return { missing: "no AWS region: pass --region or set AWS_REGION" };
      const credentials = { accessKeyId, secretAccessKey, ...(sessionToken === undefined ? {} : { sessionToken }) };
      return createEksTokenSource({ ...common, cluster: args.cluster, region, credentials });
    }
    case "aks": {
      const endpoint = read(env, "IDENTITY_ENDPOINT");
      const identityHeader = read(env, "IDENTITY_HEADER");
      if (endpoint === undefined || identityHeader === undefined) {
        const unset = unsetNames({ IDENTITY_ENDPOINT: endpoint, IDENTITY_HEADER: identityHeader });
        return { missing: `no managed identity endpoint: ${unset} (App Service and Azure Functions set them for an app with a managed identity)` };
      }
      const clientId = args.clientId ?? read(env, "AZURE_CLIENT_ID");
      return createAzureManagedIdentityTokenSource({
        ...common,
        endpoint,
        identityHeader,
        ...(clientId === undefined ? {} : { clientId }),
        ...(args.serverId === undefined ? {} : { resource: args.serverId }),
        ...(deps.fetch === undefined ? {} : { fetch: deps.fetch }),
      });
    }
    case "gke": {
      const host = read(env, "GCE_METADATA_HOST");
      return createGcpMetadataTokenSource({
        ...common,
        ...(host === undefined ? {} : { host }),
        ...(deps.fetch === undefined ? {} : { fetch: deps.fetch }),
      });
    }
  }
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
  if (!parsed.ok) {
    for (const error of parsed.errors) io.stderr(`${PREFIX}: ${error}\n`);
    io.stderr(`Run 'gmsa-webhooks token --help' for usage.\n`);
    return EXIT_USAGE;
  }
  const { args } = parsed;
  if (args.help) {
    io.stdout(TOKEN_USAGE);
    return EXIT_OK;
  }
  const prefix = `${PREFIX} ${args.provider}`;
  try {
    const source = buildTokenSource(args, io.env, deps);
    if ("missing" in source) {
      io.stderr(`${prefix}: ${source.missing}\n`);
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
