/** The kubeconfig user's client certificate: presented by the connection pool, not per request, so no token source. */
import type { TokenSourceChoice, TokenSourceKind } from "./source.ts";

export const clientCertificate = {
  kind: "clientCertificate",
  unusable: ({ clientCertificate, runtime }) =>
    clientCertificate ? undefined : `client certificates cannot be presented on ${runtime}; use token or JWT_*`,
} as const satisfies TokenSourceKind<Extract<TokenSourceChoice, { kind: "clientCertificate" }>>;
