/** CLOUD_TOKEN=aks: an Entra ID token for the AKS server app from App Service's managed identity endpoint. */
import type { CloudTokenSettings } from "../cloud-token-source.ts";
import type { Cloud } from "./cloud.ts";

function isHttpUrl(text: string): boolean {
  try {
    return ["http:", "https:"].includes(new URL(text).protocol);
  } catch {
    return false;
  }
}

export const aks = {
  kind: "aks",
  variables: ["AKS_CLIENT_ID", "AKS_SERVER_ID"],
  formats: { IDENTITY_ENDPOINT: [{ test: isHttpUrl }, "an http(s) URL"] },
  unreachable: "the managed identity endpoint is a local address of the App Service or Azure Functions host",
  read({ read, first, requireSet }) {
    requireSet(
      ["IDENTITY_ENDPOINT", "IDENTITY_HEADER"],
      (unset) =>
        `no managed identity endpoint: ${unset} (App Service and Azure Functions set them for an app with a managed identity)`,
    );
    const endpoint = first("IDENTITY_ENDPOINT");
    const identityHeader = read.optional("IDENTITY_HEADER");
    const clientId = first("AKS_CLIENT_ID", "AZURE_CLIENT_ID");
    if (endpoint === undefined || identityHeader === undefined) return undefined;
    return { kind: "aks", endpoint, identityHeader, clientId, resource: read.text("AKS_SERVER_ID") };
  },
} as const satisfies Cloud<Extract<CloudTokenSettings, { kind: "aks" }>>;
