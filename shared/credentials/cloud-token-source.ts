/** The token source of a CLOUD_TOKEN setting or `gmsa-webhooks token <kind>`, for every runtime and the CLI alike. */
import { createAzureManagedIdentityTokenSource, type AzureManagedIdentityTokenSourceOptions } from "./azure-managed-identity.ts";
import { createEksTokenSource, type EksTokenOptions } from "./eks.ts";
import { createGcpMetadataTokenSource, type GcpMetadataTokenSourceOptions } from "./gcp-metadata.ts";
import type { TokenEndpointSourceOptions } from "./token-endpoint.ts";
import type { TokenSource } from "./token-source.ts";

/** An EKS token presigned from the AWS credentials in the environment (what Lambda provides). */
export type EksTokenSettings = { kind: "eks" } & EksTokenOptions;
/** An Entra ID token from the App Service / Azure Functions managed identity endpoint. */
export type AksTokenSettings = { kind: "aks" } & Pick<AzureManagedIdentityTokenSourceOptions, "endpoint" | "identityHeader" | "clientId" | "resource">;
/** A service account's access token from Google's metadata server. */
export type GkeTokenSettings = { kind: "gke" } & Pick<GcpMetadataTokenSourceOptions, "host" | "serviceAccount">;
/** One cloud's token source, as CLOUD_TOKEN and its variables (or `gmsa-webhooks token <kind>`) chose it. */
export type CloudTokenSettings = EksTokenSettings | AksTokenSettings | GkeTokenSettings;

/**
 * The source for `settings`, with what the runtime decides in `options` (eks signs locally and fetches nothing).
 * @throws TypeError for settings its factory refuses (the configuration module checks them first).
 */
export function createCloudTokenSource(settings: CloudTokenSettings, options: Omit<TokenEndpointSourceOptions, "timeoutMs">): TokenSource {
  switch (settings.kind) {
    case "eks":
      return createEksTokenSource({ ...options, ...settings });
    case "aks":
      return createAzureManagedIdentityTokenSource({ ...options, ...settings });
    case "gke":
      return createGcpMetadataTokenSource({ ...options, ...settings });
  }
}
