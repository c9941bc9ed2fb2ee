import { nodeTls } from "./node-builtins.ts";
import type { ClientCertificate } from "../../shared/http/caller-auth.ts";

/**
 * The client certificate of a request's TLS connection, as verified by the server started with `clientCaFile`
 * (server.ts); undefined over plain HTTP.
 */
export function readSocketCertificate(socket: unknown): ClientCertificate | undefined {
  if (!(socket instanceof nodeTls().TLSSocket)) return undefined;
  const cert = socket.getPeerCertificate();
  const presented = typeof cert === "object" && cert !== null && Object.keys(cert).length > 0;
  const cn: unknown = presented ? (cert.subject as { CN?: unknown } | undefined)?.CN : undefined;
  const error = socket.authorizationError as unknown;
  return {
    presented,
    authorized: socket.authorized,
    error: error === undefined || error === null ? undefined : describeError(error),
    commonNames: typeof cn === "string" ? [cn] : Array.isArray(cn) ? cn.filter((n): n is string => typeof n === "string") : [],
  };
}

/** OpenSSL's code (`UNABLE_TO_VERIFY_LEAF_SIGNATURE`), never the certificate's contents. */
function describeError(error: unknown): string {
  if (error instanceof Error) return (error as { code?: unknown }).code?.toString() ?? error.name;
  return String(error).slice(0, 80);
}
