/**
 * Node's {@link KubeFetch}: undici's fetch over a keep-alive connection pool that trusts the kubeconfig CA
 * (only it, as kubectl does), honours `tls-server-name` and `proxy-url` and presents the client certificate. An exec plugin
 * may issue a new client certificate per refresh, so each certificate gets its own pool and old pools are
 * closed once their requests finish. undici's own fetch is used with its own Agent, so the dispatcher and
 * fetch always come from the same undici version (Node's bundled one is older).
 */
import { Agent, ProxyAgent, buildConnector, fetch as undiciFetch, type Dispatcher, type RequestInit as UndiciRequestInit } from "undici";
import type { ClientCertificate, KubeFetch } from "../../../shared/kube/transport.ts";

/** Options of {@link createKeepAliveFetch}. */
export interface KeepAliveFetchOptions {
  /** PEM bundle to trust instead of Node's default roots. */
  ca?: string | undefined;
  /** kubeconfig `insecure-skip-tls-verify`: accept any server certificate. */
  insecureSkipTlsVerify?: boolean;
  /** kubeconfig `tls-server-name`: SNI and the name the certificate must carry. */
  tlsServerName?: string | undefined;
  /** kubeconfig `proxy-url` (http or https): requests tunnel through it with CONNECT. */
  proxyUrl?: string | undefined;
  /** A client certificate for every request (kubeconfig); per-request ones come with each call. */
  clientCertificate?: ClientCertificate | undefined;
  /** Connections per origin. Default 16. */
  connections?: number;
  /** How long an idle connection stays open. Default 60000. */
  keepAliveTimeoutMs?: number;
}

/** The fetch and the pools behind it. */
export interface KeepAliveFetch {
  fetch: KubeFetch;
  /** Closes every pool after its in-flight requests. */
  close(): Promise<void>;
}

/** Pools kept for past client certificates while their requests drain. */
const MAX_POOLS = 2;

/** Builds the fetch. Pools open connections lazily, on first use. */
export function createKeepAliveFetch(options: KeepAliveFetchOptions = {}): KeepAliveFetch {
  const keepAliveTimeout = options.keepAliveTimeoutMs ?? 60_000;
  const pools = new Map<string, Dispatcher>();

  function createPool(certificate: ClientCertificate | undefined): Dispatcher {
    const { tlsServerName } = options;
    const tls = {
      ...(options.ca === undefined ? {} : { ca: options.ca }),
      ...(certificate === undefined ? {} : { cert: certificate.certificate, key: certificate.key }),
      rejectUnauthorized: options.insecureSkipTlsVerify !== true,
      // HTTP/1.1 keep-alive pool; the client and its connector must agree on ALPN.
      allowH2: false,
    };
    const pool = { connections: options.connections ?? 16, keepAliveTimeout, keepAliveMaxTimeout: keepAliveTimeout, allowH2: false };
    if (options.proxyUrl !== undefined) {
      // ProxyAgent takes SNI from requestTls.servername when given, else from the URL's host.
      const requestTls = tlsServerName === undefined ? tls : { ...tls, servername: tlsServerName };
      return new ProxyAgent({ ...pool, uri: options.proxyUrl, requestTls });
    }
    const connector = buildConnector(tls);
    return new Agent({
      ...pool,
      // undici derives SNI from the URL's host and it would win over a connector option, so override per connect.
      connect: tlsServerName === undefined ? connector : (connectOptions, callback) => connector({ ...connectOptions, servername: tlsServerName }, callback),
    });
  }

  function poolFor(certificate: ClientCertificate | undefined): Dispatcher {
    const key = certificate === undefined ? "" : `${certificate.certificate}\n${certificate.key}`;
    let pool = pools.get(key);
    if (pool === undefined) {
      pool = createPool(certificate);
      pools.set(key, pool);
      while (pools.size > MAX_POOLS) {
        const [oldestKey, oldest] = pools.entries().next().value as [string, Dispatcher];
        pools.delete(oldestKey);
        oldest.close().catch(() => undefined);
      }
    }
    return pool;
  }

  if (options.clientCertificate !== undefined) poolFor(options.clientCertificate);

  const fetch: KubeFetch = (url, init, clientCertificate) => {
    const dispatcher = poolFor(clientCertificate ?? options.clientCertificate);
    return undiciFetch(url, { ...(init as unknown as UndiciRequestInit), dispatcher });
  };

  return {
    fetch,
    async close() {
      const closing = [...pools.values()].map((pool) => pool.close());
      pools.clear();
      await Promise.all(closing);
    },
  };
}
