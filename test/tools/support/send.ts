/** One HTTP or HTTPS request to a server under test on 127.0.0.1: its answer and the connection that carried it. */
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { request as httpsRequest, type RequestOptions } from "node:https";
import type { Socket } from "node:net";
import type { TLSSocket } from "node:tls";

export interface Reply {
  status: number;
  text: string;
  headers: IncomingHttpHeaders;
  /** Taken when the response starts: an agent detaches it once the body is read. */
  socket: Socket;
  /** The SHA-256 fingerprint of the certificate the connection was shown (HTTPS only). */
  fingerprint: string | undefined;
}

/**
 * Sends one request on a connection of its own unless `options.agent` keeps one alive; `body` whole, or its `first`
 * part at once and the rest when `rest` resolves.
 */
export function send(
  options: RequestOptions & { https?: boolean },
  body?: string | { first: string; rest: Promise<string> },
): Promise<Reply> {
  const { https = false, ...rest } = options;
  return new Promise<Reply>((resolve, reject) => {
    const req = (https ? httpsRequest : httpRequest)({ host: "127.0.0.1", agent: false, ...rest }, (res) => {
      const socket = res.socket;
      const fingerprint = https ? (socket as TLSSocket).getPeerCertificate().fingerprint256 : undefined;
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString();
        resolve({ status: res.statusCode ?? 0, text, headers: res.headers, socket, fingerprint });
      });
    });
    req.once("error", reject);
    if (typeof body === "object") {
      req.write(body.first);
      void body.rest.then((text) => req.end(text));
    } else req.end(body);
  });
}
