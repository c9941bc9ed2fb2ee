import {
  CLOUD_TOKENS,
  readCloudTokenSettings,
  type CloudTokenKind,
  type VariableName,
} from "../shared/config/index.ts";
import { createCloudTokenSource } from "../shared/credentials/cloud-token-source.ts";
import { EXEC_API_V1, EXEC_API_VERSIONS } from "../shared/credentials/exec-config.ts";
import { isTokenCredential } from "../shared/credentials/token-source.ts";
import { AdmissionError } from "../shared/errors.ts";
import { parseJson } from "../shared/json.ts";
import { command, EXIT_INVALID, EXIT_OK, EXIT_USAGE, type CommandLine } from "./io.ts";

type Variables = Partial<Record<VariableName, string>>;

const TEXT = { type: "string" } as const;
const OPTIONS = { cluster: TEXT, region: TEXT, "client-id": TEXT, "server-id": TEXT };

/** Each provider's flags, and the CLOUD_TOKEN variable each replaces. */
const PROVIDER_FLAGS: Record<CloudTokenKind, Record<string, VariableName>> = {
  eks: { cluster: "EKS_CLUSTER_NAME", region: "EKS_REGION" },
  aks: { "client-id": "AKS_CLIENT_ID", "server-id": "AKS_SERVER_ID" },
  gke: {},
};

/** The provider a command line names and the variables its flags set (the environment fills the rest), or why not. */
function readProvider({ values, positionals }: CommandLine<typeof OPTIONS>): {
  provider?: CloudTokenKind;
  variables: Variables;
  errors: string[];
} {
  const provider = CLOUD_TOKENS.find((candidate) => candidate === positionals[0]);
  const variables: Variables = {};
  if (positionals.length !== 1 || provider === undefined) {
    const providers = CLOUD_TOKENS.join(", ");
    const got = positionals.map((word) => JSON.stringify(word)).join(" ");
    return {
      variables,
      errors: [
        positionals.length === 0
          ? `missing provider: one of ${providers}`
          : `expected one provider (${providers}), got ${got}`,
      ],
    };
  }
  const errors: string[] = [];
  for (const [flag, value] of Object.entries(values)) {
    if (typeof value !== "string") continue;
    const name = PROVIDER_FLAGS[provider][flag];
    if (name === undefined) errors.push(`--${flag} does not apply to ${provider}`);
    else if (value === "") errors.push(`--${flag} is empty`);
    else variables[name] = value;
  }
  if (provider === "eks" && values.cluster === undefined) errors.push("eks needs --cluster <name>");
  return { provider, variables, errors };
}

/** `gmsa-webhooks token eks|aks|gke`: resolves to the exit status. The token goes to stdout only; stderr never holds a key or token. */
export const runTokenCommand = command({
  name: "token",
  options: OPTIONS,
  usage: `Usage: gmsa-webhooks token <eks | aks | gke> [options]

A kubeconfig exec plugin without the clouds' helper binaries: prints an ExecCredential
(v1, or the version KUBERNETES_EXEC_INFO asks for) with a token for the cluster, read
from the environment as the functions read CLOUD_TOKEN's (docs/configuration.md):
  eks   a k8s-aws-v1. token valid 14 minutes, from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
        AWS_SESSION_TOKEN and AWS_REGION or AWS_DEFAULT_REGION (no profiles or SSO)
  aks   an Entra ID token from the managed identity endpoint (IDENTITY_ENDPOINT, IDENTITY_HEADER)
  gke   the service account's token from the metadata server (GCE_METADATA_HOST, GKE_SERVICE_ACCOUNT)

Options (each replaces the variable it stands for):
  --cluster <name>      eks: the EKS cluster name (required; EKS_CLUSTER_NAME)
  --region <region>     eks: the STS region (EKS_REGION; default AWS_REGION, then AWS_DEFAULT_REGION)
  --client-id <id>      aks: user-assigned identity (AKS_CLIENT_ID; default AZURE_CLIENT_ID, else system-assigned)
  --server-id <id>      aks: the audience (AKS_SERVER_ID; default 6dae42f8-4368-4678-94ff-3960e28e3630)
  -h, --help            show this help

Exit status: 0 printed, 1 no credentials or the cloud refused (aks, gke: after 5 seconds),
2 usage error. Errors go to stderr and never show a key or token.

Example kubeconfig user (docs/configuration.md): exec with apiVersion
client.authentication.k8s.io/v1, command npx, args [--no, gmsa-webhooks, token, eks, --cluster, my-cluster].
--no stops npx from fetching a package of that name from the registry when run outside the checkout.
`,
  check: (line) => readProvider(line).errors,
  async run(line, io) {
    const { provider, variables } = readProvider(line);
    if (provider === undefined) return EXIT_USAGE; // unreachable: the check has refused it
    const prefix = `${io.program} token ${provider}`;
    try {
      // The CLOUD_TOKEN variables from the environment with the flags laid over them; problems name the flag.
      const flags = Object.fromEntries(
        Object.entries(PROVIDER_FLAGS[provider]).map(([flag, name]) => [name, `--${flag}`]),
      );
      const { settings, problems } = readCloudTokenSettings({ ...io.env, ...variables }, provider, flags);
      if (settings === undefined || problems.length > 0) {
        for (const problem of problems) io.stderr(`${prefix}: ${problem}\n`);
        return EXIT_INVALID;
      }
      const credential = await createCloudTokenSource(settings, { shareInFlight: true }).getCredential();
      if (!isTokenCredential(credential) || credential.expirationTimestamp === undefined) {
        throw new TypeError("the source returned no token with an expiry");
      }
      // The apiVersion kubectl asked for in KUBERNETES_EXEC_INFO (client-go refuses any other), else v1.
      const info = parseJson(io.env.KUBERNETES_EXEC_INFO ?? "") as { apiVersion?: unknown } | null | undefined;
      const apiVersion = EXEC_API_VERSIONS.find((version) => version === info?.apiVersion) ?? EXEC_API_V1;
      // Whole seconds, `2030-01-01T00:14:00Z`, as `aws eks get-token` prints it.
      const expirationTimestamp = new Date(Math.floor(Date.parse(credential.expirationTimestamp) / 1000) * 1000)
        .toISOString()
        .replace(/\.000Z$/, "Z");
      io.stdout(
        `${JSON.stringify({ apiVersion, kind: "ExecCredential", status: { expirationTimestamp, token: credential.token } })}\n`,
      );
      return EXIT_OK;
    } catch (error) {
      // Our own errors' messages are written never to hold a secret; of anything else, only its kind.
      const ours = error instanceof AdmissionError || error instanceof TypeError;
      io.stderr(
        `${prefix}: ${ours ? error.message : `unexpected failure (${error instanceof Error ? error.name : typeof error})`}\n`,
      );
      return EXIT_INVALID;
    }
  },
});
