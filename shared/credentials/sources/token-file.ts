/** The kubeconfig user's `tokenFile` (or the in-cluster service-account token), re-read as it rotates: a file to read. */
import type { TokenSourceChoice, TokenSourceKind } from "./source.ts";

export const tokenFile = {
  kind: "tokenFile",
  unusable: ({ tokenFile, runtime }) =>
    tokenFile ? undefined : `tokenFile cannot be read on ${runtime}; use token or JWT_*`,
} as const satisfies TokenSourceKind<Extract<TokenSourceChoice, { kind: "tokenFile" }>>;
