/**
 * The one I/O seam of the Kubernetes client: a fetch that may present a client certificate. The Node-based targets
 * (the Node server, Lambda, Azure) build it on a node:https keep-alive Agent trusting the kubeconfig CA
 * (`functions/node/kube/https-fetch.ts`); Workers use the global fetch, which trusts only public CAs and cannot
 * present a kubeconfig client certificate.
 */

/** A PEM client certificate and its PEM key, for the TLS handshake. */
export interface ClientCertificate {
  certificate: string;
  key: string;
}

/** What the client sends: a fetch RequestInit narrowed to what its calls use. */
export interface KubeRequestInit {
  method: string;
  /** Header names as written; values are never repeated. */
  headers?: Record<string, string>;
  /** JSON text. */
  body?: string;
  signal?: AbortSignal;
  /** A 3xx comes back as the answer, never followed (the node:https transport never follows one either). */
  redirect?: "manual";
}

/**
 * What the client reads of an answer: a fetch Response has it, and the node:https transport gives it without
 * building one (a web Response and Headers load Node's bundled undici: about 5 MiB of memory and, in a Lambda cold
 * start, its compile time).
 */
export interface KubeResponse {
  status: number;
  headers: { get(name: string): string | null };
  text(): Promise<string>;
}

/** fetch, plus the client certificate the request must present (exec plugins may issue one per refresh). */
export type KubeFetch = (url: string, init: KubeRequestInit, clientCertificate?: ClientCertificate) => Promise<KubeResponse>;

/**
 * A {@link KubeFetch} over a plain fetch (Workers' global one). Rejects requests that need a client certificate,
 * which such a fetch cannot present; the Workers adapter refuses those kubeconfigs at start-up anyway. Redirects are
 * never followed, whatever the caller asked: fetch would otherwise read the next hop's body as the API server's.
 */
export function createPlainKubeFetch(fetchFunction: typeof fetch = fetch): KubeFetch {
  return (url, init, clientCertificate) => {
    if (clientCertificate !== undefined) {
      return Promise.reject(new TypeError("this runtime's fetch cannot present a client certificate"));
    }
    return fetchFunction(url, { ...init, redirect: "manual" });
  };
}
