/**
 * A redirecting stand-in for the API server, for the Worker tier: every request gets a 302 to `lure`, a server
 * that answers anything with a credspec and an allowed access review. A client that follows redirects reads
 * that as the API server's word.
 */
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";

export interface RedirectServers {
  /** The redirecting server, the kubeconfig's `server`. */
  url: string;
  /** Requests each server received, as `METHOD path`. */
  redirected: string[];
  lured: string[];
  close(): Promise<void>;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Starts both servers with `tls` (trusted by the Worker's outbound fetch in tests). */
export async function startRedirectServers(
  tls: { cert: string; key: string },
  credspec: unknown,
): Promise<RedirectServers> {
  const redirected: string[] = [];
  const lured: string[] = [];
  const lure = createServer(tls, (req, res) => {
    lured.push(`${req.method} ${req.url}`);
    req.resume();
    res
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ credspec, status: { allowed: true } }));
  });
  const lureUrl = await listen(lure);
  const redirecting = createServer(tls, (req, res) => {
    redirected.push(`${req.method} ${req.url}`);
    req.resume();
    res.writeHead(302, { location: `${lureUrl}${req.url ?? "/"}` }).end();
  });
  const url = await listen(redirecting);
  const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));
  return { url, redirected, lured, close: async () => void (await Promise.all([close(lure), close(redirecting)])) };
}
