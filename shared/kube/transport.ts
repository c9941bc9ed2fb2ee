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

/** fetch, plus the client certificate the request must present (exec plugins may issue one per refresh). */
export type KubeFetch = (url: string, init: RequestInit, clientCertificate?: ClientCertificate) => Promise<Response>;

/**
 * A {@link KubeFetch} over a plain fetch (Workers' global one). Rejects requests that need a client certificate,
 * which such a fetch cannot present; the Workers adapter refuses those kubeconfigs at start-up anyway.
 */
export function createPlainKubeFetch(fetchFunction: typeof fetch = fetch): KubeFetch {
  return (url, init, clientCertificate) => {
    if (clientCertificate !== undefined) {
      return Promise.reject(new TypeError("this runtime's fetch cannot present a client certificate"));
    }
    return fetchFunction(url, init);
  };
}
