/** A scripted plain-HTTP stand-in on 127.0.0.1 for the clouds' token endpoints; records every request. */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

export interface EndpointRequest {
  method: string;
  /** Path and query as sent. */
  url: URL;
  headers: IncomingHttpHeaders;
}

export interface EndpointAnswer {
  status: number;
  /** A string is sent as is (for bad JSON); anything else as JSON. */
  body?: unknown;
  headers?: Record<string, string>;
}

/** Returns an answer, or "hang" to never answer. */
export type EndpointScript = (request: EndpointRequest, index: number) => EndpointAnswer | "hang";

export interface TokenEndpointServer {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  /** `127.0.0.1:<port>`. */
  host: string;
  requests: EndpointRequest[];
  script: EndpointScript;
  close(): Promise<void>;
}

/** Starts the stand-in on an ephemeral port. */
export async function startTokenEndpointServer(script: EndpointScript): Promise<TokenEndpointServer> {
  const requests: EndpointRequest[] = [];
  const server = createServer((req, res) => {
    const request = { method: req.method ?? "", url: new URL(req.url ?? "/", "http://stand-in"), headers: req.headers };
    requests.push(request);
    const answer = state.script(request, requests.length - 1);
    if (answer === "hang") return;
    const body =
      answer.body === undefined ? "" : typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body);
    res.writeHead(answer.status, { "Content-Type": "application/json", ...answer.headers });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const state: TokenEndpointServer = {
    origin: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    requests,
    script,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return state;
}
