/** CLOUD_TOKEN: the clouds' own identities without helper binaries (../cloud-token-source.ts), where their endpoint answers. */
import type { CloudTokenSettings } from "../cloud-token-source.ts";
import type { TokenSourceChoice, TokenSourceKind } from "./source.ts";

/** Why a runtime cannot reach a cloud source's endpoint (Workers: no loopback, no link-local address). eks has none. */
const UNREACHABLE: Partial<Record<CloudTokenSettings["kind"], string>> = {
  aks: "the managed identity endpoint is a local address of the App Service or Azure Functions host",
  gke: "the metadata server answers only inside Google's runtimes",
};

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
      : `CLOUD_TOKEN=${kind} cannot be used on ${runtime}: ${UNREACHABLE[kind] ?? "its endpoint is out of reach"}; set JWT_* or give the user a token`,
} as const satisfies TokenSourceKind<Extract<TokenSourceChoice, { kind: "cloud" }>>;
