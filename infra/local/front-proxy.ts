/**
 * The local stand-in for what puts a private-CA API server behind a publicly trusted name (Cloudflare Tunnel's
 * cloudflared with `originRequest.caPool`, or any reverse proxy; infra/deploy/cloudflare/README.md): an HTTPS server on
 * loopback whose certificate comes from a CA of its own (the "public" CA the Workers trust), forwarding every
 * request to kube-apiserver over TLS verified against the cluster CA. The Authorization header passes through
 * untouched and bodies stream both ways, so the API server still authenticates the Worker's JWT itself.
 */
import { mkdir } from "node:fs/promises";
import { Agent, createServer, request as httpsRequest } from "node:https";
import type { IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { pipeline } from "node:stream";
import { createCertificateAuthority, issueServingCertificate } from "./pki.ts";

/** Headers a forwarding hop must not copy (RFC 9110 section 7.6.1); `host` is the upstream's. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "upgrade",
  "te",
  "trailer",
  "host",
]);

function forwardable(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name)));
}

/** Options of {@link startFrontProxy}. */
export interface FrontProxyOptions {
  /** Folder for the front's CA and certificate. */
  dir: string;
  /** kube-apiserver's https URL. */
  upstream: string;
  /** The cluster CA, the only one the front trusts towards the API server. */
  upstreamCaPem: string;
}

/** A running front. */
export interface FrontProxy {
  /** `https://127.0.0.1:<port>`: the server of the Workers' kubeconfig. */
  url: string;
  /** PEM file of the front's own CA: what a Worker trusts instead of the cluster CA. */
  caFile: string;
  close(): Promise<void>;
}

/** Starts the front on a free loopback port with a certificate from a fresh CA in `<dir>/front-ca/`. */
export async function startFrontProxy(options: FrontProxyOptions): Promise<FrontProxy> {
  const caDir = join(options.dir, "front-ca");
  await mkdir(caDir, { recursive: true });
  const ca = await createCertificateAuthority(caDir, "gmsa-webhooks local public CA (front proxy)");
  const serving = await issueServingCertificate(ca, caDir, "front", ["127.0.0.1", "localhost"]);
  const upstream = new URL(options.upstream);
  const agent = new Agent({ ca: options.upstreamCaPem, keepAlive: true });
  const server = createServer({ cert: serving.certPem, key: serving.keyPem }, (request, response) => {
    const outbound = httpsRequest(
      {
        protocol: upstream.protocol,
        hostname: upstream.hostname,
        port: upstream.port,
        method: request.method,
        path: request.url,
        headers: { ...forwardable(request.headers), host: upstream.host },
        agent,
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, forwardable(answer.headers));
        pipeline(answer, response, () => undefined);
      },
    );
    outbound.on("error", () => {
      // Like cloudflared: the origin could not be reached (or failed verification); nothing about why leaks.
      if (!response.headersSent) response.writeHead(502).end();
      else response.destroy();
    });
    pipeline(request, outbound, () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    caFile: ca.certFile,
    close: () =>
      new Promise<void>((resolve) => {
        agent.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
