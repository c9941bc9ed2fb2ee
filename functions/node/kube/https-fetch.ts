/**
 * The {@link KubeFetch} of every Node-based target: node:https with a keep-alive Agent trusting the kubeconfig CA
 * (only it, as kubectl does), honouring `tls-server-name` and `proxy-url` (the Agent's CONNECT tunnel) and presenting
 * the client certificate. Node's global fetch cannot trust a private CA, and undici was most of each bundle, its load
 * time and about 10 MiB of idle memory.
 */
import { Agent as HttpAgent, request as httpRequest } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { Socket } from "node:net";
import { text as readText } from "node:stream/consumers";
import { LRUCache } from "lru-cache";
import type { ClientCertificate, KubeFetch, KubeResponse } from "../../../shared/kube/request.ts";
import type { KubeCluster } from "../../../shared/kubeconfig/kube-target.ts";

/**
 * Options of {@link createHttpsKubeFetch}: the cluster's TLS settings as the kubeconfig gives them; `ca` replaces
 * Node's default roots; `clientCertificate` is the kubeconfig's (per-request ones come with each call); `headers` go
 * with every request, an array as one line per value (the CLI's impersonation); `connections` per origin, default 16.
 */
export interface KeepAliveFetchOptions extends Partial<
  Pick<KubeCluster, "insecureSkipTlsVerify" | "tlsServerName" | "proxyUrl">
> {
  ca?: string | undefined;
  clientCertificate?: ClientCertificate | undefined;
  headers?: Record<string, string | string[]>;
  connections?: number;
}

/** Agents kept while their requests drain: an exec plugin may issue a new client certificate, with its own Agent, per refresh. */
const MAX_AGENTS = 2;

function retire(agent: HttpAgent): void {
  agent.on("free", (socket: Socket) => socket.destroy());
  for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
}

/**
 * Builds the fetch over node:https (node:http for an `http://` server). It resolves once the whole body has
 * arrived, so the caller's signal bounds a stalled body as well as a silent server; failures reject as fetch's do.
 * @returns the fetch, and `close` for the connection pools (Agents) behind it: idle sockets now, busy ones once done.
 * @throws TypeError for a `proxyUrl` on a Node older than 24.5 (it would otherwise be silently bypassed).
 */
export function createHttpsKubeFetch(options: KeepAliveFetchOptions = {}): {
  fetch: KubeFetch;
  close(): Promise<void>;
} {
  // Node's built-in proxy support for Agents (`proxyEnv`) arrived in 24.5.
  const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
  if (options.proxyUrl !== undefined && (major < 24 || (major === 24 && minor < 5)))
    throw new TypeError("kubeconfig proxy-url needs Node 24.5 or later");
  // The proxy applies to every request to the cluster (kubectl's proxy-url has no NO_PROXY).
  const proxyEnv =
    options.proxyUrl === undefined ? {} : { proxyEnv: { HTTPS_PROXY: options.proxyUrl, HTTP_PROXY: options.proxyUrl } };
  const plainAgent = new HttpAgent({ keepAlive: true, maxSockets: options.connections ?? 16, ...proxyEnv });
  // One Agent per client certificate, made on first use; retiring one (evicted or closed) lets its busy sockets finish.
  const agents = new LRUCache<string, HttpAgent, ClientCertificate | undefined>({
    max: MAX_AGENTS,
    dispose: retire,
    memoMethod: (_key, _stale, { context: certificate }) =>
      new HttpsAgent({
        ...proxyEnv,
        keepAlive: true,
        maxSockets: options.connections ?? 16,
        // Idle sockets close after a minute (the Agent's socket timeout applies to free sockets).
        timeout: 60_000,
        ...(options.ca === undefined ? {} : { ca: options.ca }),
        ...(certificate === undefined ? {} : { cert: certificate.certificate, key: certificate.key }),
        rejectUnauthorized: options.insecureSkipTlsVerify !== true,
        // SNI and the name checked against the certificate (tls.connect checks `servername` when given).
        ...(options.tlsServerName === undefined ? {} : { servername: options.tlsServerName }),
      }),
  });
  const agentFor = (certificate: ClientCertificate | undefined): HttpAgent =>
    agents.memo(certificate === undefined ? "" : `${certificate.certificate}\n${certificate.key}`, {
      context: certificate,
    });

  const fetch: KubeFetch = (url, init, clientCertificate) =>
    new Promise<KubeResponse>((resolve, reject) => {
      const { signal } = init;
      const plain = url.startsWith("http:");
      const req = (plain ? httpRequest : httpsRequest)(url, {
        method: init.method,
        headers: { ...options.headers, ...init.headers },
        agent: plain ? plainAgent : agentFor(clientCertificate ?? options.clientCertificate),
        ...(signal === undefined ? {} : { signal }),
      });
      const fail = (error: unknown): void => {
        // As fetch: an abort rejects with the signal's reason (AbortError, TimeoutError); anything else is a TypeError
        // whose `cause` carries Node's error `code`.
        if (signal?.aborted !== true) reject(new TypeError("fetch failed", { cause: error }));
        else
          reject(
            signal.reason instanceof Error
              ? signal.reason
              : new DOMException("This operation was aborted", "AbortError"),
          );
      };
      req.once("error", fail);
      req.once("response", (res) => {
        // As fetch's Headers give it: every field of that name, joined by ", ".
        const get = (name: string): string | null => res.headersDistinct[name.toLowerCase()]?.join(", ") ?? null;
        // A response cut short fails with Node's ECONNRESET.
        readText(res).then(
          (text) => resolve({ status: res.statusCode ?? 0, headers: { get }, text: () => Promise.resolve(text) }),
          fail,
        );
      });
      req.end(init.body);
    });

  return {
    fetch,
    close() {
      retire(plainAgent);
      agents.clear();
      return Promise.resolve();
    },
  };
}
