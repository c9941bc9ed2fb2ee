/**
 * The `kubernetes` Service for servers run as pods (pod-sandbox.ts), in place of kube-proxy: a TCP forwarder
 * listening on the Service's ClusterIP ({@link KUBERNETES_SERVICE_IP}, an address of the pod network's host side)
 * and connecting to kube-apiserver on loopback. TLS passes through untouched, so the pod verifies the API server's
 * own certificate (it names the ClusterIP) against the service account's `ca.crt`, as in a cluster.
 */
import { connect, createServer, type AddressInfo, type Socket } from "node:net";
import { KUBERNETES_SERVICE_IP } from "./server-flags.ts";

/** A listening forwarder. */
export interface KubernetesServiceForwarder {
  /** What the kubelet would set: `KUBERNETES_SERVICE_HOST` and `KUBERNETES_SERVICE_PORT`. */
  env: { KUBERNETES_SERVICE_HOST: string; KUBERNETES_SERVICE_PORT: string };
  close(): Promise<void>;
}

/**
 * Starts forwarding `KUBERNETES_SERVICE_IP:<free port>` to the API server `server` (an https URL on loopback). A
 * free port rather than 443, so several sandboxes on one machine do not collide.
 * @throws Error when the address is not on this host yet (create the pod network first).
 */
export async function startKubernetesService(server: string): Promise<KubernetesServiceForwarder> {
  const upstream = new URL(server);
  const sockets = new Set<Socket>();
  const listener = createServer((downstream) => {
    const upstreamSocket = connect(Number(upstream.port), upstream.hostname);
    for (const socket of [downstream, upstreamSocket]) {
      sockets.add(socket);
      socket.once("close", () => sockets.delete(socket));
      // Either end failing ends both; the client sees a reset, as through kube-proxy.
      socket.once("error", () => {
        downstream.destroy();
        upstreamSocket.destroy();
      });
    }
    downstream.pipe(upstreamSocket).pipe(downstream);
  });
  await new Promise<void>((resolve, reject) => {
    listener.once("error", reject);
    listener.listen(0, KUBERNETES_SERVICE_IP, resolve);
  });
  const { port } = listener.address() as AddressInfo;
  return {
    env: { KUBERNETES_SERVICE_HOST: KUBERNETES_SERVICE_IP, KUBERNETES_SERVICE_PORT: String(port) },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        listener.close(() => resolve());
      }),
  };
}
