/** The token sources: the kubeconfig user's, then those set by variables in the order one is chosen (docs/configuration.md). */
import { clientCertificate } from "./client-certificate.ts";
import { cloud } from "./cloud.ts";
import { exec } from "./exec.ts";
import { jwt } from "./jwt.ts";
import type { TokenSourceChoice, TokenSourceKind } from "./source.ts";
import { token } from "./token.ts";
import { tokenFile } from "./token-file.ts";

export type { ConfiguredTokenSources, TokenSourceCapabilities, TokenSourceChoice } from "./source.ts";

/** Every source; a new one is a file beside this one and an entry here. */
export const TOKEN_SOURCES: readonly TokenSourceKind<TokenSourceChoice>[] = [
  token,
  exec,
  tokenFile,
  clientCertificate,
  jwt,
  cloud,
];

/** The source of `choice`. */
export function findTokenSourceKind(choice: TokenSourceChoice): TokenSourceKind<TokenSourceChoice> {
  // Every choice is of a kind in the set.
  return TOKEN_SOURCES.find((source) => source.kind === choice.kind)!;
}
