import type { HttpBindings } from "@hono/node-server";
import { TLSSocket } from "node:tls";
import type { ClientCertificate, ClientCertificateReader } from "../../shared/http/caller-auth.ts";

/**
 * The client certificate of a request's TLS connection, as verified by the server started with the client CA
 * (server.ts), read from the node-server adapter's bindings (`c.env.incoming`); undefined over plain HTTP.
 */
export const readClientCertificate: ClientCertificateReader = (c) => {
  const socket = (c.env as Partial<HttpBindings>).incoming?.socket;
  if (!(socket instanceof TLSSocket)) return undefined;
  const cert = socket.getPeerCertificate();
  const presented = typeof cert === "object" && cert !== null && Object.keys(cert).length > 0;
  const cn: unknown = presented ? (cert.subject as { CN?: unknown } | undefined)?.CN : undefined;
  const error = socket.authorizationError as unknown;
  return {
    presented,
    authorized: socket.authorized,
    error: error === undefined || error === null ? undefined : describeError(error),
    commonNames: typeof cn === "string" ? [cn] : Array.isArray(cn) ? cn.filter((n): n is string => typeof n === "string") : [],
  } satisfies ClientCertificate;
};

/** OpenSSL's code (`UNABLE_TO_VERIFY_LEAF_SIGNATURE`), never the certificate's contents. */
function describeError(error: unknown): string {
  if (error instanceof Error) return (error as { code?: unknown }).code?.toString() ?? error.name;
  return String(error).slice(0, 80);
}
