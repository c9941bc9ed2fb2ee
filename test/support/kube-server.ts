/** A scripted local HTTPS "API server" that records requests and counts TLS connections. */
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import type { TLSSocket } from "node:tls";

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Name, value, name, value...: a header sent on several lines stays several. */
  rawHeaders: string[];
  body: string;
  /** CN of the client certificate, when one was presented. */
  clientCn?: string;
}

export interface ScriptedAnswer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** Returns an answer, or "hang" to never answer. */
export type Script = (
  request: RecordedRequest,
  index: number,
) => ScriptedAnswer | "hang" | Promise<ScriptedAnswer | "hang">;

export interface KubeServer {
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** TLS handshakes completed so far. */
  connections(): number;
  /** Codes of the TLS handshakes the server refused (`tlsClientError`), e.g. a missing client certificate. */
  refusedHandshakes: string[];
  script: Script;
  close(): Promise<void>;
}

export interface KubeServerOptions {
  cert: string;
  key: string;
  /** Require a client certificate signed by this CA. */
  clientCa?: string;
  script?: Script;
}

/** Starts the server on 127.0.0.1 and an ephemeral port. */
export async function startKubeServer(options: KubeServerOptions): Promise<KubeServer> {
  let handshakes = 0;
  const requests: RecordedRequest[] = [];
  const refusedHandshakes: string[] = [];
  const server: Server = createServer({
    cert: options.cert,
    key: options.key,
    ...(options.clientCa === undefined ? {} : { ca: options.clientCa, requestCert: true, rejectUnauthorized: true }),
  });
  const state: KubeServer = {
    url: "",
    port: 0,
    requests,
    connections: () => handshakes,
    refusedHandshakes,
    script: options.script ?? (() => ({ status: 200, body: {} })),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  server.on("secureConnection", () => handshakes++);
  server.on("tlsClientError", (error: NodeJS.ErrnoException) => refusedHandshakes.push(error.code ?? error.message));
  server.on("request", (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const peer = (req.socket as TLSSocket).getPeerCertificate?.();
      const recorded: RecordedRequest = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        rawHeaders: req.rawHeaders,
        body: Buffer.concat(chunks).toString("utf8"),
        ...(peer?.subject?.CN === undefined ? {} : { clientCn: String(peer.subject.CN) }),
      };
      requests.push(recorded);
      void Promise.resolve(state.script(recorded, requests.length - 1)).then((answer) => {
        if (answer === "hang") return;
        res.writeHead(answer.status, { "Content-Type": "application/json", ...answer.headers });
        res.end(answer.body === undefined ? "" : JSON.stringify(answer.body));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.port = (server.address() as AddressInfo).port;
  state.url = `https://127.0.0.1:${state.port}`;
  return state;
}
