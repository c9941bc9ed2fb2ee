/**
 * Real, revocable tokens for the functions' service accounts: each one minted with the
 * TokenRequest API and bound to a fresh Secret, so deleting the Secret revokes it.
 */
import type { LocalClusterInfo } from "./cluster.ts";
import { kubeRequestOk, type KubeEndpoint } from "./kube-request.ts";
import type { FunctionName } from "../../shared/config/index.ts";

/** Namespace of the functions' service accounts (infra/deploy/rbac/). */
export const FUNCTIONS_NAMESPACE = "gmsa-webhooks";

/** The service account a function runs as, `gmsa-<fn>` (infra/deploy/rbac/<fn>.yaml). */
export function functionServiceAccount(fn: FunctionName): string {
  return `gmsa-${fn}`;
}

/** Label on the Secrets tokens are bound to; its value is the service account name. */
export const BOUND_TOKEN_LABEL = "gmsa-webhooks.local/bound-token-for";

/** TokenRequest refuses shorter tokens (`expirationSeconds` must be at least 10 minutes). */
const MIN_TOKEN_SECONDS = 600;
const DEFAULT_TOKEN_SECONDS = 3600;

/** What the plugin prints (client.authentication.k8s.io ExecCredential with a token status). */
export interface ExecCredential {
  apiVersion: string;
  kind: "ExecCredential";
  status: { token: string; expirationTimestamp: string };
}

/** RFC 3339 in whole seconds, as Kubernetes writes timestamps. */
function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** Options for {@link mintExecCredential}. */
export interface MintOptions {
  minter: KubeEndpoint;
  serviceAccount: string;
  namespace: string;
  apiVersion: string;
  /** Advertised lifetime; the real token lasts at least 600 s. */
  lifetimeSeconds?: number | undefined;
  /** Injectable clock (ms since epoch). */
  now?: () => number;
}

/**
 * Creates a Secret, mints a token for the service account bound to it, and returns the
 * ExecCredential. @throws Error naming the failed call (never including a token).
 */
export async function mintExecCredential(options: MintOptions): Promise<ExecCredential> {
  const { minter, serviceAccount, namespace, apiVersion, lifetimeSeconds, now = Date.now } = options;
  const base = `/api/v1/namespaces/${namespace}`;
  const secret = await kubeRequestOk<{ metadata: { name: string; uid: string } }>(minter, `${base}/secrets`, {
    method: "POST",
    body: {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { generateName: `${serviceAccount}-token-`, labels: { [BOUND_TOKEN_LABEL]: serviceAccount } },
    },
  });
  const expirationSeconds = Math.max(MIN_TOKEN_SECONDS, lifetimeSeconds ?? DEFAULT_TOKEN_SECONDS);
  const tokenRequest = await kubeRequestOk<{ status: { token: string; expirationTimestamp: string } }>(
    minter,
    `${base}/serviceaccounts/${serviceAccount}/token`,
    {
      method: "POST",
      body: {
        apiVersion: "authentication.k8s.io/v1",
        kind: "TokenRequest",
        spec: {
          expirationSeconds,
          boundObjectRef: { apiVersion: "v1", kind: "Secret", name: secret.metadata.name, uid: secret.metadata.uid },
        },
      },
    },
  );
  const realExpiry = Date.parse(tokenRequest.status.expirationTimestamp);
  const advertised = lifetimeSeconds === undefined ? realExpiry : Math.min(realExpiry, now() + lifetimeSeconds * 1000);
  return {
    apiVersion,
    kind: "ExecCredential",
    status: { token: tokenRequest.status.token, expirationTimestamp: rfc3339(advertised) },
  };
}

/**
 * Revokes every token the plugin minted for `serviceAccount` (all of them when omitted) by deleting
 * the Secrets they are bound to; the API server then answers 401 to those tokens.
 * @returns how many Secrets were deleted.
 */
export async function revokeFunctionTokens(cluster: LocalClusterInfo, serviceAccount?: string): Promise<number> {
  const selector = serviceAccount === undefined ? BOUND_TOKEN_LABEL : `${BOUND_TOKEN_LABEL}=${serviceAccount}`;
  const list = await kubeRequestOk<{ items?: unknown[] }>(
    { server: cluster.server, caPem: cluster.caPem, token: cluster.adminToken },
    `/api/v1/namespaces/${FUNCTIONS_NAMESPACE}/secrets?labelSelector=${encodeURIComponent(selector)}`,
    { method: "DELETE" },
  );
  return list.items?.length ?? 0;
}
