/**
 * Which credential a kubeconfig context and the JWT_* settings give, on a runtime that can do some things and not
 * others: one rule for every runtime. The runtime builds the concrete token source from the choice.
 */
import type { JwtSettings } from "../config/index.ts";
import type { KubeTarget } from "../kubeconfig/kube-target.ts";
import type { ExecConfig } from "./exec-config.ts";

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
}

/** The credential to build; `clientCertificate` and `anonymous` need no token source. */
export type TokenSourceChoice =
  | { kind: "exec"; exec: ExecConfig }
  | { kind: "token"; token: string }
  | { kind: "tokenFile"; tokenFile: string }
  | { kind: "jwt"; jwt: JwtSettings }
  | { kind: "clientCertificate" }
  | { kind: "anonymous" };

/**
 * The credential of `target`'s user, or the JWT token source when the user has none and `jwt` is set.
 * @returns the choice (undefined when there is a problem) with every problem and warning found.
 */
export function selectTokenSource(
  target: KubeTarget,
  jwt: JwtSettings | undefined,
  can: TokenSourceCapabilities,
): { choice: TokenSourceChoice | undefined; problems: string[]; warnings: string[] } {
  const { auth } = target;
  const where = `kubeconfig context "${target.contextName}"`;
  const problems: string[] = [];
  const warnings: string[] = [];
  if (jwt !== undefined && auth.kind !== "none") problems.push(`${where}: the user has a credential of its own and JWT_* is set too; keep one`);
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
      else if (!can.anonymous) problems.push(`${where}: no credential; set JWT_* or give the user a token`);
      else {
        warnings.push(`${where} has no credential: requests are anonymous`);
        choice = { kind: "anonymous" };
      }
      break;
  }
  return { choice: problems.length > 0 ? undefined : choice, problems, warnings };
}
