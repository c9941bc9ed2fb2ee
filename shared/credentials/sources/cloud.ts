/** CLOUD_TOKEN: the clouds' own identities without helper binaries (../cloud-token-source.ts), where their endpoint answers. */
import { findCloud } from "../clouds/index.ts";
import type { TokenSourceChoice, TokenSourceKind } from "./source.ts";

export const cloud = {
  kind: "cloud",
  configured: {
    variables: "CLOUD_TOKEN",
    choose: ({ cloudToken }) =>
      cloudToken === undefined
        ? undefined
        : { choice: { kind: "cloud", cloudToken }, label: `CLOUD_TOKEN=${cloudToken.kind}` },
  },
  unusable: ({ cloudTokens, runtime }, { cloudToken: { kind } }) =>
    cloudTokens.includes(kind)
      ? undefined
      : `CLOUD_TOKEN=${kind} cannot be used on ${runtime}: ${findCloud(kind).unreachable ?? "its endpoint is out of reach"}; set JWT_* or give the user a token`,
} as const satisfies TokenSourceKind<Extract<TokenSourceChoice, { kind: "cloud" }>>;
