/**
 * AKS tokens without kubelogin (`kubelogin convert-kubeconfig -l msi`): an Entra ID token for the AKS server app from
 * the managed identity endpoint App Service and Azure Functions give an app with an identity.
 * https://learn.microsoft.com/azure/app-service/overview-managed-identity#rest-endpoint-reference
 */
import { CredentialsError } from "../errors.ts";
import { createTokenEndpointSource, requireString, type TokenEndpointSourceOptions } from "./token-endpoint.ts";
import type { TokenSource } from "./token-source.ts";
import { AKS_SERVER_APP_ID } from "./cloud-constants.ts";

/** The endpoint version that takes `X-IDENTITY-HEADER` and `client_id` (the 2017 one took `secret`, `clientid`). */
const APP_SERVICE_MSI_API_VERSION = "2019-08-01";

/** Options of {@link createAzureManagedIdentityTokenSource}. */
export interface AzureManagedIdentityTokenSourceOptions extends TokenEndpointSourceOptions {
  /** The app's `IDENTITY_ENDPOINT`, e.g. `http://127.0.0.1:41741/MSI/token/`. */
  endpoint: string;
  /** The app's `IDENTITY_HEADER`, sent as `X-IDENTITY-HEADER`: a secret, never logged. */
  identityHeader: string;
  /** A user-assigned identity's client id; without it, the system-assigned identity. */
  clientId?: string | undefined;
  /** The token's audience. Default {@link AKS_SERVER_APP_ID}. */
  resource?: string | undefined;
}

const DESCRIBE = "Azure managed identity endpoint";

/** `expires_on` in epoch ms: the endpoint sends epoch seconds, as a string in the 2019 API, as a number in others. */
function parseExpiresOn(value: unknown): number {
  const text = typeof value === "number" ? String(value) : value;
  if (typeof text !== "string" || !/^\d{1,12}$/.test(text)) {
    throw new CredentialsError(`${DESCRIBE} answered without expires_on in epoch seconds`);
  }
  return Number(text) * 1000;
}

/**
 * A {@link TokenSource} over the managed identity endpoint, cached until `expires_on` less the refresh skew.
 * @throws TypeError for an endpoint that is not an http(s) URL, an empty header or client id, or a bad timeout.
 */
export function createAzureManagedIdentityTokenSource(options: AzureManagedIdentityTokenSourceOptions): TokenSource {
  let url: URL;
  try {
    url = new URL(options.endpoint);
  } catch {
    throw new TypeError("the managed identity endpoint is not a URL");
  }
  url.searchParams.set("resource", options.resource ?? AKS_SERVER_APP_ID);
  url.searchParams.set("api-version", APP_SERVICE_MSI_API_VERSION);
  if (options.clientId !== undefined) url.searchParams.set("client_id", options.clientId);
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new TypeError("the managed identity endpoint must be an http(s) URL");
  if (options.identityHeader === "") throw new TypeError("the managed identity header is empty");
  if (options.clientId === "") throw new TypeError("the managed identity client id is empty (leave it out for the system-assigned identity)");
  const headers = { "X-IDENTITY-HEADER": options.identityHeader, Accept: "application/json" };
  return createTokenEndpointSource(options, { url, headers, describe: DESCRIBE }, (body) => ({
    token: requireString(body, "access_token", DESCRIBE),
    expirationTimestamp: new Date(parseExpiresOn(body["expires_on"])).toISOString(),
  }));
}
