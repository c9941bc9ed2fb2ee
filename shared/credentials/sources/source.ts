/** What a token source is made of (one file per source beside this one, the set in index.ts). */
import type { KubeUserAuth } from "../../kubeconfig/kube-target.ts";
import type { CloudTokenSettings } from "../cloud-token-source.ts";
import type { JwtSettings } from "../jwt.ts";

/**
 * What a runtime (named in problems) can do towards the API server. None calls without a credential: a function the
 * API server takes for anonymous cannot work (docs/upgrading.md).
 */
export interface TokenSourceCapabilities {
  runtime: string;
  exec: boolean;
  tokenFile: boolean;
  clientCertificate: boolean;
  cloudTokens: readonly CloudTokenSettings["kind"][];
}

/** The sources set by variables rather than by the kubeconfig user: JWT_*, CLOUD_TOKEN. */
export type ConfiguredTokenSources = { jwt?: JwtSettings | undefined; cloudToken?: CloudTokenSettings | undefined };

/** The credential to build: the user's own, or JWT_* or CLOUD_TOKEN; `clientCertificate` needs no token source. */
export type TokenSourceChoice =
  | Exclude<KubeUserAuth, { kind: "none" }>
  | { kind: "jwt"; jwt: JwtSettings }
  | { kind: "cloud"; cloudToken: CloudTokenSettings };

/** One token source: where its settings come from and what a runtime must be able to do to use it. */
export interface TokenSourceKind<Choice extends TokenSourceChoice> {
  readonly kind: Choice["kind"];
  /** A source set by variables (else the kubeconfig user's): their name in messages, and its choice when they are set. */
  readonly configured?: {
    readonly variables: string;
    choose(settings: ConfiguredTokenSources): { choice: Choice; label: string } | undefined;
  };
  /** Why a runtime that can do `can` cannot use `choice` and what to use instead, if so. */
  unusable?(can: TokenSourceCapabilities, choice: Choice): string | undefined;
}
