/**
 * GKE tokens without gke-gcloud-auth-plugin: the service account's access token from the metadata server of GKE,
 * Cloud Run, Cloud Functions and Compute Engine, which GKE maps by email to a user.
 * https://cloud.google.com/compute/docs/access/authenticate-workloads#applications
 */
import { CredentialsError } from "../errors.ts";
import { createTokenEndpointSource, requireString, type TokenEndpointSourceOptions } from "./token-endpoint.ts";
import type { TokenSource } from "./token-source.ts";
import { GCP_METADATA_HOST, GCP_METADATA_HOST_PATTERN, GCP_SERVICE_ACCOUNT_PATTERN } from "./cloud-constants.ts";

/** Options of {@link createGcpMetadataTokenSource}. */
export interface GcpMetadataTokenSourceOptions extends TokenEndpointSourceOptions {
  /** `host` or `host:port` of the metadata server. Default {@link GCP_METADATA_HOST}. */
  host?: string | undefined;
  /** The service account's email or `default` (the runtime's own). Default `default`. */
  serviceAccount?: string;
}

const DESCRIBE = "Google metadata server";

/** The token URL of `serviceAccount` on the metadata server at `host`. */
export function buildGcpMetadataTokenUrl(options: Pick<GcpMetadataTokenSourceOptions, "host" | "serviceAccount">): URL {
  const host = options.host ?? GCP_METADATA_HOST;
  const account = options.serviceAccount ?? "default";
  if (!GCP_METADATA_HOST_PATTERN.test(host)) throw new TypeError(`metadata host ${JSON.stringify(host)} is not host or host:port`);
  if (!GCP_SERVICE_ACCOUNT_PATTERN.test(account)) throw new TypeError(`service account ${JSON.stringify(account)} is not default or an email`);
  // Plain http on purpose: the metadata server is link-local and serves no TLS.
  return new URL(`http://${host}/computeMetadata/v1/instance/service-accounts/${account}/token`);
}

/** A {@link TokenSource} over the metadata server, cached until `expires_in` less the skew. @throws TypeError for bad options. */
export function createGcpMetadataTokenSource(options: GcpMetadataTokenSourceOptions): TokenSource {
  const endpoint = {
    url: buildGcpMetadataTokenUrl(options),
    headers: { "Metadata-Flavor": "Google", Accept: "application/json" },
    // As Google's gcp-metadata library checks: a proxy or captive portal answering in its place lacks it.
    responseHeader: { name: "Metadata-Flavor", value: "Google" },
    describe: DESCRIBE,
  };
  return createTokenEndpointSource(options, endpoint, (body, requestedAt) => {
    const token = requireString(body, "access_token", DESCRIBE);
    const tokenType = body["token_type"];
    if (tokenType !== undefined && (typeof tokenType !== "string" || tokenType.toLowerCase() !== "bearer")) {
      throw new CredentialsError(`${DESCRIBE} answered a token_type other than Bearer`);
    }
    const expiresIn = body["expires_in"];
    if (typeof expiresIn !== "number" || !Number.isFinite(expiresIn) || expiresIn <= 0) {
      throw new CredentialsError(`${DESCRIBE} answered without a positive expires_in`);
    }
    // Counted from the request, not the answer: the server's clock started before ours stopped.
    return { token, expirationTimestamp: new Date(requestedAt + expiresIn * 1000).toISOString() };
  });
}
