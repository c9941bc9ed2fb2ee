/**
 * Which credential a kubeconfig context, the JWT_* settings and CLOUD_TOKEN give, on a runtime that can do some
 * things and not others: one rule for every runtime. The runtime builds the concrete token source from the choice.
 */
import type { KubeTarget } from "../kubeconfig/kube-target.ts";
import type { CloudTokenKind } from "./cloud-constants.ts";
import type { CloudTokenSettings } from "./cloud-token-source.ts";
import type { ExecConfig } from "./exec-config.ts";
import type { JwtSettings } from "./jwt.ts";

/** What a runtime can do towards the API server. */
export interface TokenSourceCapabilities {
  /** Named in problems ("Workers"). */
  runtime: string;
  /** Spawn kubeconfig exec plugins. */
  exec: boolean;
  /** Read (and re-read) a token file. */
  tokenFile: boolean;
  /** Present a client certificate on its connections. */
  clientCertificate: boolean;
  /** Call the API server without a credential (a warning) rather than refuse to start. */
  anonymous: boolean;
  /** The CLOUD_TOKEN sources whose endpoint the runtime can reach. */
  cloudTokens: readonly CloudTokenKind[];
}

/** The token sources the configuration turns on beside the kubeconfig (KubeSettings has both). */
export interface ConfiguredTokenSources {
  jwt?: JwtSettings | undefined;
  cloudToken?: CloudTokenSettings | undefined;
}

/** Why a runtime cannot reach a cloud source's endpoint (Workers: no loopback, no link-local address). eks has none. */
const UNREACHABLE: Partial<Record<CloudTokenKind, string>> = {
  aks: "the managed identity endpoint is a local address of the App Service or Azure Functions host",
  gke: "the metadata server answers only inside Google's runtimes",
};

/** The credential to build; `clientCertificate` and `anonymous` need no token source. */
export type TokenSourceChoice =
  | { kind: "exec"; exec: ExecConfig }
  | { kind: "token"; token: string }
  | { kind: "tokenFile"; tokenFile: string }
  | { kind: "jwt"; jwt: JwtSettings }
  | { kind: "cloud"; cloudToken: CloudTokenSettings }
  | { kind: "clientCertificate" }
  | { kind: "anonymous" };

/**
 * The credential of `target`'s user or, when the user has none, the one source the configuration turns on
 * (JWT_* or CLOUD_TOKEN); both, or either beside a user credential, is a problem ("keep one").
 * @returns the choice (undefined when there is a problem) with every problem and warning found.
 */
export function selectTokenSource(
  target: KubeTarget,
  configured: ConfiguredTokenSources,
  can: TokenSourceCapabilities,
): { choice: TokenSourceChoice | undefined; problems: string[]; warnings: string[] } {
  const { auth } = target;
  const { jwt, cloudToken } = configured;
  const where = `kubeconfig context "${target.contextName}"`;
  const problems: string[] = [];
  const warnings: string[] = [];
  if (jwt !== undefined && auth.kind !== "none") problems.push(`${where}: the user has a credential of its own and JWT_* is set too; keep one`);
  if (cloudToken !== undefined && auth.kind !== "none") {
    problems.push(`${where}: the user has a credential of its own and CLOUD_TOKEN=${cloudToken.kind} is set too; keep one`);
  }
  if (jwt !== undefined && cloudToken !== undefined) problems.push(`JWT_* and CLOUD_TOKEN=${cloudToken.kind} are both set; keep one`);
  if (cloudToken !== undefined && !can.cloudTokens.includes(cloudToken.kind)) {
    problems.push(`CLOUD_TOKEN=${cloudToken.kind} cannot be used on ${can.runtime}: ${UNREACHABLE[cloudToken.kind] ?? "its endpoint is out of reach"}; set JWT_* or give the user a token`);
  }
  let choice: TokenSourceChoice | undefined;
  switch (auth.kind) {
    case "exec":
      if (can.exec) choice = { kind: "exec", exec: auth.exec };
      else problems.push(`${where}: exec plugins cannot run on ${can.runtime}; remove the user's exec block and set JWT_* instead`);
      break;
    case "tokenFile":
      if (can.tokenFile) choice = { kind: "tokenFile", tokenFile: auth.tokenFile };
      else problems.push(`${where}: tokenFile cannot be read on ${can.runtime}; use token or JWT_*`);
      break;
    case "clientCertificate":
      // Presented by the connection pool, not per request.
      if (can.clientCertificate) choice = { kind: "clientCertificate" };
      else problems.push(`${where}: client certificates cannot be presented on ${can.runtime}; use token or JWT_*`);
      break;
    case "token":
      choice = { kind: "token", token: auth.token };
      break;
    case "none":
      if (jwt !== undefined) choice = { kind: "jwt", jwt };
      else if (cloudToken !== undefined) choice = { kind: "cloud", cloudToken };
      else if (!can.anonymous) problems.push(`${where}: no credential; set JWT_* or give the user a token`);
      else {
        warnings.push(`${where} has no credential: requests are anonymous`);
        choice = { kind: "anonymous" };
      }
      break;
  }
  return { choice: problems.length > 0 ? undefined : choice, problems, warnings };
}
