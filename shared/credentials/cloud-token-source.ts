/**
 * The token source of a CLOUD_TOKEN setting (or of `gmsa-webhooks token <kind>`): one place that turns the
 * configuration of each cloud into its source, for the Node runtimes, Workers and the CLI alike.
 */
import { createAzureManagedIdentityTokenSource } from "./azure-managed-identity.ts";
import { createEksTokenSource, type AwsCredentials } from "./eks.ts";
import { createGcpMetadataTokenSource } from "./gcp-metadata.ts";
import type { TokenSource } from "./token-source.ts";
import type { RefreshObserver } from "../observer.ts";

/** An EKS token presigned from the AWS credentials in the environment (what Lambda provides). */
export interface EksTokenSettings {
  kind: "eks";
  cluster: string;
  region: string;
  /** Secret. */
  credentials: AwsCredentials;
}

/** An Entra ID token from the App Service / Azure Functions managed identity endpoint. */
export interface AksTokenSettings {
  kind: "aks";
  endpoint: string;
  /** Secret. */
  identityHeader: string;
  /** A user-assigned identity; absent: the system-assigned one. */
  clientId?: string;
  /** The token's audience, the AKS server application by default. */
  resource: string;
}

/** A service account's access token from Google's metadata server. */
export interface GkeTokenSettings {
  kind: "gke";
  /** `host` or `host:port`. */
  host: string;
  /** `default` or an email. */
  serviceAccount: string;
}

/** One cloud's token source, as CLOUD_TOKEN and its variables (or `gmsa-webhooks token <kind>`) chose it. */
export type CloudTokenSettings = EksTokenSettings | AksTokenSettings | GkeTokenSettings;

/** What the runtime decides: sharing, clock and (for the endpoints of aks and gke) the fetch to use. */
export interface CloudTokenSourceOptions {
  /** See {@link CredentialCacheOptions.shareInFlight}: true on Node, false on Workers. */
  shareInFlight: boolean;
  now?: (() => number) | undefined;
  /** See {@link CredentialCacheOptions.onRefresh}. */
  onRefresh?: RefreshObserver | undefined;
  /** Default: the global fetch. Unused by eks, which signs locally. */
  fetch?: typeof fetch | undefined;
}

/**
 * The source for `settings`.
 * @throws TypeError for settings its factory refuses (the configuration module checks them first).
 */
export function createCloudTokenSource(settings: CloudTokenSettings, options: CloudTokenSourceOptions): TokenSource {
  switch (settings.kind) {
    case "eks":
      return createEksTokenSource({ shareInFlight: options.shareInFlight, now: options.now, onRefresh: options.onRefresh, cluster: settings.cluster, region: settings.region, credentials: settings.credentials });
    case "aks":
      return createAzureManagedIdentityTokenSource({
        ...options,
        endpoint: settings.endpoint,
        identityHeader: settings.identityHeader,
        clientId: settings.clientId,
        resource: settings.resource,
      });
    case "gke":
      return createGcpMetadataTokenSource({ ...options, host: settings.host, serviceAccount: settings.serviceAccount });
  }
}
