/** Which credential a kubeconfig context, JWT_* and CLOUD_TOKEN give on a runtime: one rule for every runtime. */
import type { KubeTarget, KubeUserAuth } from "../kubeconfig/kube-target.ts";
import type { CloudTokenSettings } from "./cloud-token-source.ts";
import type { JwtSettings } from "./jwt.ts";

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

/** Why a runtime cannot reach a cloud source's endpoint (Workers: no loopback, no link-local address). eks has none. */
const UNREACHABLE: Partial<Record<CloudTokenSettings["kind"], string>> = {
  aks: "the managed identity endpoint is a local address of the App Service or Azure Functions host",
  gke: "the metadata server answers only inside Google's runtimes",
};

/** The credential to build: the user's own, or JWT_* or CLOUD_TOKEN; `clientCertificate` needs no token source. */
export type TokenSourceChoice =
  | Exclude<KubeUserAuth, { kind: "none" }>
  | { kind: "jwt"; jwt: JwtSettings }
  | { kind: "cloud"; cloudToken: CloudTokenSettings };

/** Why a runtime without the capability cannot use the user's credential, and what to use instead. */
const UNUSABLE: Record<"exec" | "tokenFile" | "clientCertificate", (runtime: string) => string> = {
  exec: (runtime) => `exec plugins cannot run on ${runtime}; remove the user's exec block and set JWT_* instead`,
  tokenFile: (runtime) => `tokenFile cannot be read on ${runtime}; use token or JWT_*`,
  // Presented by the connection pool, not per request.
  clientCertificate: (runtime) => `client certificates cannot be presented on ${runtime}; use token or JWT_*`,
};

/** The credential of `target`'s user, else the one of JWT_* or CLOUD_TOKEN (two at once is a problem); no choice with a problem. */
export function selectTokenSource(
  target: KubeTarget,
  configured: { jwt?: JwtSettings | undefined; cloudToken?: CloudTokenSettings | undefined },
  can: TokenSourceCapabilities,
): { choice: TokenSourceChoice | undefined; problems: string[] } {
  const { auth } = target;
  const { jwt, cloudToken } = configured;
  const where = `kubeconfig context "${target.contextName}"`;
  const problems: string[] = [];
  if (jwt !== undefined && auth.kind !== "none")
    problems.push(`${where}: the user has a credential of its own and JWT_* is set too; keep one`);
  if (cloudToken !== undefined && auth.kind !== "none") {
    problems.push(
      `${where}: the user has a credential of its own and CLOUD_TOKEN=${cloudToken.kind} is set too; keep one`,
    );
  }
  if (jwt !== undefined && cloudToken !== undefined)
    problems.push(`JWT_* and CLOUD_TOKEN=${cloudToken.kind} are both set; keep one`);
  if (cloudToken !== undefined && !can.cloudTokens.includes(cloudToken.kind)) {
    problems.push(
      `CLOUD_TOKEN=${cloudToken.kind} cannot be used on ${can.runtime}: ${UNREACHABLE[cloudToken.kind] ?? "its endpoint is out of reach"}; set JWT_* or give the user a token`,
    );
  }
  let choice: TokenSourceChoice | undefined;
  if (auth.kind === "token") choice = auth;
  else if (auth.kind !== "none") {
    if (can[auth.kind]) choice = auth;
    else problems.push(`${where}: ${UNUSABLE[auth.kind](can.runtime)}`);
  } else if (jwt !== undefined) choice = { kind: "jwt", jwt };
  else if (cloudToken !== undefined) choice = { kind: "cloud", cloudToken };
  else problems.push(`${where}: no credential; give the user one, or set JWT_* or CLOUD_TOKEN`);
  return { choice: problems.length > 0 ? undefined : choice, problems };
}
