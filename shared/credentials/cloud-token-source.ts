/**
 * The token source of a CLOUD_TOKEN setting (or of `gmsa-webhooks token <kind>`): one place that turns the
 * configuration of each cloud into its source, for the Node runtimes, Workers and the CLI alike.
 */
import type { CloudTokenSettings } from "../config/cloud-token.ts";
import { createAzureManagedIdentityTokenSource } from "./azure-managed-identity.ts";
import { createEksTokenSource } from "./eks.ts";
import { createGcpMetadataTokenSource } from "./gcp-metadata.ts";
import type { TokenSource } from "./token-source.ts";
import type { RefreshObserver } from "../observer.ts";

/** What the runtime decides: sharing, clock, skew and (for the endpoints of aks and gke) the fetch to use. */
export interface CloudTokenSourceOptions {
  /** See {@link CredentialCacheOptions.shareInFlight}: true on Node, false on Workers. */
  shareInFlight: boolean;
  now?: (() => number) | undefined;
  refreshSkewMs?: number | undefined;
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
      return createEksTokenSource({ shareInFlight: options.shareInFlight, now: options.now, refreshSkewMs: options.refreshSkewMs, onRefresh: options.onRefresh, cluster: settings.cluster, region: settings.region, credentials: settings.credentials });
    case "aks":
      return createAzureManagedIdentityTokenSource({
        ...options,
        endpoint: settings.endpoint,
        identityHeader: settings.identityHeader,
        clientId: settings.clientId,
        resource: settings.resource,
        timeoutMs: settings.timeoutMs,
      });
    case "gke":
      return createGcpMetadataTokenSource({ ...options, host: settings.host, serviceAccount: settings.serviceAccount, timeoutMs: settings.timeoutMs });
  }
}
