/** The kubeconfig user's static `token`: every runtime can send it. */
import type { TokenSourceChoice, TokenSourceKind } from "./source.ts";

export const token = { kind: "token" } as const satisfies TokenSourceKind<
  Extract<TokenSourceChoice, { kind: "token" }>
>;
