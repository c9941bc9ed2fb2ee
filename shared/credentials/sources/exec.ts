/** The kubeconfig user's exec plugin (KEP-541): a process to spawn, so Node only. */
import type { TokenSourceChoice, TokenSourceKind } from "./source.ts";

export const exec = {
  kind: "exec",
  unusable: ({ exec, runtime }) =>
    exec ? undefined : `exec plugins cannot run on ${runtime}; remove the user's exec block and set JWT_* instead`,
} as const satisfies TokenSourceKind<Extract<TokenSourceChoice, { kind: "exec" }>>;
