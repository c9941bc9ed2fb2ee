/** JWT_*: a short-lived JWT minted with jose (../jwt.ts), for runtimes that cannot spawn processes; every runtime. */
import type { TokenSourceChoice, TokenSourceKind } from "./source.ts";

export const jwt = {
  kind: "jwt",
  configured: {
    variables: "JWT_*",
    choose: ({ jwt }) => (jwt === undefined ? undefined : { choice: { kind: "jwt", jwt }, label: "JWT_*" }),
  },
} as const satisfies TokenSourceKind<Extract<TokenSourceChoice, { kind: "jwt" }>>;
