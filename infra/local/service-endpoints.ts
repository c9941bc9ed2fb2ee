/**
 * What the endpoints controller would write for a Service whose pod runs in a sandbox (pod-sandbox.ts): one
 * EndpointSlice, labelled with the Service's name, naming the pod's address as ready. kube-apiserver 1.36 resolves
 * a webhook's Service from EndpointSlices only (`--enable-aggregator-routing`, k8s.io/apiserver
 * pkg/util/proxy.ResolveEndpoint); it reads no Endpoints object.
 */
import { applyObjects, type KubeObject } from "./apply.ts";
import type { KubeEndpoint } from "./kube-request.ts";

/** A port of the slice; `name` must equal the Service port's name (`""` for an unnamed port). */
export interface EndpointPort {
  name: string;
  port: number;
}

/** Options of {@link pointServiceAt}. */
export interface PointServiceAtOptions {
  namespace: string;
  service: string;
  /** The pod's IPv4 address. */
  ip: string;
  ports: EndpointPort[];
}

/** The EndpointSlice `<service>-sandbox` for the Service. */
export function buildEndpointSlice(options: PointServiceAtOptions): KubeObject {
  return {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: {
      name: `${options.service}-sandbox`,
      namespace: options.namespace,
      labels: { "kubernetes.io/service-name": options.service, "endpointslice.kubernetes.io/managed-by": "gmsa-webhooks-local" },
    },
    addressType: "IPv4",
    endpoints: [{ addresses: [options.ip], conditions: { ready: true } }],
    // The resolver skips ports without a name, so the empty name is written out.
    ports: options.ports.map(({ name, port }) => ({ name, port, protocol: "TCP" })),
  };
}

/** Applies {@link buildEndpointSlice}; the API server's informer sees it within about a second. */
export async function pointServiceAt(endpoint: KubeEndpoint, options: PointServiceAtOptions): Promise<void> {
  await applyObjects(endpoint, [buildEndpointSlice(options)]);
}
