/**
 * What the endpoints controllers would write for a Service whose pod runs in a sandbox (pod-sandbox.ts): one
 * EndpointSlice, labelled with the Service's name, naming the pod's address as ready, and, for an API server older
 * than 1.33, the Endpoints object of the same address. kube-apiserver resolves a webhook's Service
 * (`--enable-aggregator-routing`, k8s.io/apiserver pkg/util/proxy.ResolveEndpoint) from EndpointSlices since 1.33
 * (kubernetes/kubernetes#129837) and from Endpoints before.
 */
import { applyObjects, type KubeObject } from "./apply.ts";
import { kubeRequestOk, type KubeEndpoint } from "./kube-request.ts";
import { KUBE_FEATURES, kubeAtLeast } from "./kube-versions.ts";

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

/** The Endpoints object `<service>` the endpoints controller keeps for the Service, for API servers before 1.33. */
export function buildEndpoints(options: PointServiceAtOptions): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Endpoints",
    metadata: { name: options.service, namespace: options.namespace },
    subsets: [{ addresses: [{ ip: options.ip }], ports: options.ports.map(({ name, port }) => ({ name, port, protocol: "TCP" })) }],
  };
}

/**
 * Applies {@link buildEndpointSlice}, and {@link buildEndpoints} when the API server (its `/version`) resolves
 * Services from Endpoints; its informer sees them within about a second.
 */
export async function pointServiceAt(endpoint: KubeEndpoint, options: PointServiceAtOptions): Promise<void> {
  await applyObjects(endpoint, [buildEndpointSlice(options)]);
  const { gitVersion } = await kubeRequestOk<{ gitVersion: string }>(endpoint, "/version");
  if (kubeAtLeast(gitVersion, KUBE_FEATURES.serviceResolutionFromEndpointSlices)) return;
  await applyObjects(endpoint, [buildEndpoints(options)]);
}
