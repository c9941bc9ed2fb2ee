/**
 * Certificate reload without a restart: when TLS_CERT_FILE, TLS_KEY_FILE or the mTLS client CA change (a Secret volume
 * swaps its `..data` symlink; cert-manager renews), a pair that loads is installed with `server.setSecureContext`;
 * open connections keep their context, new handshakes get the new one.
 *
 * A client certificate is verified once, at the handshake. So when the client CA changes, connections accepted under
 * the earlier CA are closed (idle ones at once, busy ones once answered, with `Connection: close`) and a request that
 * arrives on one is not served: else a client of a CA no longer trusted stays authorized as long as it keeps sending.
 */
import { watch } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname } from "node:path";
import { X509Certificate } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Server as HttpsServer } from "node:https";
import type { Socket } from "node:net";
import { createSecureContext, type TLSSocket } from "node:tls";
import { shortErrorCode } from "../../shared/errors.ts";
import type { Logger } from "../../shared/log.ts";

/** The files a server's TLS context comes from; `caFile`: CALLER_AUTH=mtls's CA of accepted client certificates. */
export type TlsFiles = { certFile: string; keyFile: string; caFile?: string | undefined };

/** The contents of {@link TlsFiles}. */
export type TlsMaterial = Awaited<ReturnType<typeof readTlsMaterial>>;

/** Wait this long after the last change before reading: a swap is several events. */
const DEBOUNCE_MS = 250;

/** Reads the files of {@link TlsFiles}. @throws the read error (ENOENT mid-swap). */
export async function readTlsMaterial(files: TlsFiles) {
  const [cert, key, ca] = await Promise.all([
    readFile(files.certFile),
    readFile(files.keyFile),
    files.caFile === undefined ? undefined : readFile(files.caFile),
  ]);
  return { cert, key, ...(ca && { ca }) };
}

/** Watches the folders of `files` and installs a changed, valid pair on `server`, started with `initial`. */
export function watchTlsFiles(
  server: HttpsServer,
  files: TlsFiles,
  initial: TlsMaterial,
  logger: Logger,
): { close(): void } {
  let current = initial;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let reloading = Promise.resolve();
  // Only a client CA makes a connection's age matter (CALLER_AUTH=mtls); without one nothing is followed.
  const connections = files.caFile === undefined ? undefined : followConnections(server);

  async function reload(): Promise<void> {
    const next = await readTlsMaterial(files).catch((error: unknown) => {
      logger.log("error", "TLS files unreadable; keeping the current certificate", { error: shortErrorCode(error) });
    });
    if (next === undefined) return;
    const caChanged =
      current.ca === undefined || next.ca === undefined ? current.ca !== next.ca : !current.ca.equals(next.ca);
    if (!caChanged && current.cert.equals(next.cert) && current.key.equals(next.key)) return;
    let x509: X509Certificate;
    try {
      // Throws for a key that does not match the certificate, or PEM that does not parse.
      createSecureContext(next);
      x509 = new X509Certificate(next.cert);
      server.setSecureContext(next);
    } catch (error) {
      logger.log("error", "TLS certificate and key refused; keeping the current certificate", {
        error: shortErrorCode(error),
      });
      return;
    }
    current = next;
    // Never the key, never the PEM.
    logger.log("info", "TLS certificate reloaded", {
      serial: x509.serialNumber,
      notAfter: x509.validTo,
      fingerprint256: x509.fingerprint256,
    });
    if (caChanged && connections !== undefined) {
      const closing = connections.closeEarlierCa();
      logger.log("info", "client CA changed; closing the connections accepted under the previous one", {
        connections: closing,
      });
    }
  }

  const schedule = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      // One reload at a time, in order: a later swap must win over an earlier one.
      reloading = reloading.then(reload);
    }, DEBOUNCE_MS);
    timer.unref();
  };
  const folders = new Set(
    [files.certFile, files.keyFile, files.caFile].flatMap((file) => (file === undefined ? [] : [dirname(file)])),
  );
  const watchers = [...folders].map((folder) =>
    watch(folder, { persistent: false }, schedule).on("error", (error) =>
      logger.log("error", "watching the TLS folder failed", { error: shortErrorCode(error) }),
    ),
  );
  return {
    close() {
      clearTimeout(timer);
      for (const watcher of watchers) watcher.close();
      connections?.stop();
    },
  };
}

/** One TLS connection: the client CA generation it was accepted under, the responses it is still writing. */
type Connection = { generation: number; inFlight: Set<ServerResponse> };

/**
 * Follows TLS connections by the client CA generation they were accepted under: a socket's context is fixed when its
 * TCP connection is accepted ('connection'), so the TLS socket is matched to its raw one by remote address and port.
 */
function followConnections(server: HttpsServer): { closeEarlierCa(): number; stop(): void } {
  let generation = 0;
  const acceptedUnder = new Map<string, number>();
  const connections = new Map<TLSSocket, Connection>();
  const keyOf = (socket: Socket) => `${socket.remoteAddress ?? ""}|${socket.remotePort ?? ""}`;
  const isStale = (connection: Connection) => connection.generation < generation;

  const onConnection = (raw: Socket): void => {
    const key = keyOf(raw);
    acceptedUnder.set(key, generation);
    raw.once("close", () => acceptedUnder.delete(key));
  };
  const onSecureConnection = (socket: TLSSocket): void => {
    const connection: Connection = { generation: acceptedUnder.get(keyOf(socket)) ?? generation, inFlight: new Set() };
    // Handshaken under a CA the change replaced: closed before it can send a request.
    if (isStale(connection)) return void socket.destroy();
    connections.set(socket, connection);
    socket.once("close", () => connections.delete(socket));
  };
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const socket = req.socket as TLSSocket;
    const connection = connections.get(socket);
    if (connection === undefined) return;
    // Arrived after the change on a connection accepted before it: not served. The connection ends at once, so a client
    // that pipelines loses the answer in flight too (the API server's Go client does not pipeline).
    if (isStale(connection)) return void socket.destroy();
    connection.inFlight.add(res);
    res.once("close", () => {
      connection.inFlight.delete(res);
      if (isStale(connection) && connection.inFlight.size === 0) socket.end();
    });
  };
  server.on("connection", onConnection);
  server.on("secureConnection", onSecureConnection);
  // Before the app's own listener: a request on a stale connection finds its socket gone, so no answer can reach it.
  server.prependListener("request", onRequest);
  return {
    closeEarlierCa() {
      generation++;
      for (const [socket, connection] of connections) {
        if (connection.inFlight.size === 0) socket.destroy();
        // Busy: its requests are answered, saying `Connection: close` where the head is not sent yet, then it closes.
        else for (const res of connection.inFlight) if (!res.headersSent) res.shouldKeepAlive = false;
      }
      return connections.size;
    },
    stop() {
      server.off("connection", onConnection);
      server.off("secureConnection", onSecureConnection);
      server.off("request", onRequest);
    },
  };
}
