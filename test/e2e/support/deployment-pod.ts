/**
 * A Deployment as the API server stores it, run as one pod in a sandbox (infra/local/pod-sandbox.ts): the local
 * cluster has no kubelet, so this reads the pod template and does the kubelet's part for its one container, our
 * Node server (`functions/node/index.ts` stands in for the image's entry point). The environment is the
 * container's own, `secretKeyRef` and `configMapKeyRef` resolved from the API server; Secret and ConfigMap volumes
 * are written to files and mounted at their `mountPath`; the service account gets a TokenRequest token volume;
 * `runAsUser`, `runAsGroup` and `readOnlyRootFilesystem` are honoured. Then the Service's EndpointSlice names the pod.
 */
import { fileURLToPath } from "node:url";
import { adminEndpoint, type LocalClusterInfo } from "../../../infra/local/cluster.ts";
import { kubeRequestOk } from "../../../infra/local/kube-request.ts";
import { nodeBinary } from "../../../infra/local/node-binary.ts";
import { startPodSandbox, type PodSandbox, type PodVolume, type StartedPodContainer } from "../../../infra/local/pod-sandbox.ts";
import { serviceAccountVolume } from "../../../infra/local/service-account-volume.ts";
import { pointServiceAt } from "../../../infra/local/service-endpoints.ts";

const NODE_ENTRY = fileURLToPath(new URL("../../../functions/node/index.ts", import.meta.url));

interface KeyRef {
  name: string;
  key: string;
}
interface SecurityContext {
  runAsUser?: number;
  runAsGroup?: number;
  readOnlyRootFilesystem?: boolean;
}
interface Container {
  name: string;
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: KeyRef; configMapKeyRef?: KeyRef } }[];
  ports?: { name?: string; containerPort: number }[];
  volumeMounts?: { name: string; mountPath: string }[];
  securityContext?: SecurityContext;
}
interface Deployment {
  spec: {
    template: {
      spec: {
        serviceAccountName?: string;
        automountServiceAccountToken?: boolean;
        securityContext?: SecurityContext;
        containers: Container[];
        volumes?: { name: string; secret?: { secretName: string }; configMap?: { name: string } }[];
      };
    };
  };
}
interface Service {
  spec: { ports: { name?: string; port: number; targetPort?: number | string }[] };
}

/** A Deployment's pod, running. */
export interface DeploymentPod {
  sandbox: PodSandbox;
  server: StartedPodContainer;
  /** The container's port named `https` (else its first). */
  port: number;
  /** The container's environment as the pod got it, references resolved. */
  env: Record<string, string>;
}

/** Reads the files of a Secret (base64 `data`) or a ConfigMap (`data`) from the API server. */
async function readData(cluster: LocalClusterInfo, namespace: string, kind: "secrets" | "configmaps", name: string): Promise<Record<string, string>> {
  const object = await kubeRequestOk<{ data?: Record<string, string> }>(adminEndpoint(cluster), `/api/v1/namespaces/${namespace}/${kind}/${name}`);
  const data = object.data ?? {};
  if (kind === "configmaps") return data;
  return Object.fromEntries(Object.entries(data).map(([key, value]) => [key, Buffer.from(value, "base64").toString("utf8")]));
}

async function resolveEnv(cluster: LocalClusterInfo, namespace: string, container: Container): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  for (const { name, value, valueFrom } of container.env ?? []) {
    if (value !== undefined) env[name] = value;
    else if (valueFrom?.secretKeyRef) env[name] = (await readData(cluster, namespace, "secrets", valueFrom.secretKeyRef.name))[valueFrom.secretKeyRef.key] ?? "";
    else if (valueFrom?.configMapKeyRef) env[name] = (await readData(cluster, namespace, "configmaps", valueFrom.configMapKeyRef.name))[valueFrom.configMapKeyRef.key] ?? "";
    else throw new Error(`env ${name}: only value, secretKeyRef and configMapKeyRef are supported here`);
  }
  return env;
}

async function resolveVolumes(cluster: LocalClusterInfo, namespace: string, deployment: Deployment, container: Container): Promise<PodVolume[]> {
  const podSpec = deployment.spec.template.spec;
  const volumes: PodVolume[] = [];
  for (const { name, mountPath } of container.volumeMounts ?? []) {
    const volume = podSpec.volumes?.find((candidate) => candidate.name === name);
    if (volume?.secret) volumes.push({ mountPath, files: await readData(cluster, namespace, "secrets", volume.secret.secretName) });
    else if (volume?.configMap) volumes.push({ mountPath, files: await readData(cluster, namespace, "configmaps", volume.configMap.name) });
    else throw new Error(`volume ${name}: only secret and configMap volumes are supported here`);
  }
  if (podSpec.automountServiceAccountToken !== false) {
    volumes.push(await serviceAccountVolume(cluster, namespace, podSpec.serviceAccountName ?? "default"));
  }
  return volumes;
}

/**
 * Starts the Deployment `namespace/name` as one pod in a new sandbox and waits until it listens.
 * @throws Error when the pod template has more than one container or something this runner does not support.
 */
export async function runDeploymentPod(cluster: LocalClusterInfo, namespace: string, name: string, dir: string): Promise<DeploymentPod> {
  const deployment = await kubeRequestOk<Deployment>(adminEndpoint(cluster), `/apis/apps/v1/namespaces/${namespace}/deployments/${name}`);
  const podSpec = deployment.spec.template.spec;
  const [container, ...others] = podSpec.containers;
  if (container === undefined || others.length > 0) throw new Error(`deployment ${name}: expected one container`);
  const env = await resolveEnv(cluster, namespace, container);
  const volumes = await resolveVolumes(cluster, namespace, deployment, container);
  const port = (container.ports?.find((p) => p.name === "https") ?? container.ports?.[0])?.containerPort;
  if (port === undefined) throw new Error(`deployment ${name}: the container declares no port`);
  const runAsUser = container.securityContext?.runAsUser ?? podSpec.securityContext?.runAsUser;
  const runAsGroup = container.securityContext?.runAsGroup ?? podSpec.securityContext?.runAsGroup;
  const sandbox = await startPodSandbox(cluster, { dir, hostname: name });
  try {
    const server = await sandbox.startContainer({
      name: container.name,
      command: nodeBinary(),
      args: [NODE_ENTRY],
      env,
      volumes,
      ...(runAsUser === undefined ? {} : { runAsUser }),
      ...(runAsGroup === undefined ? {} : { runAsGroup }),
      readOnlyRootFilesystem: container.securityContext?.readOnlyRootFilesystem ?? false,
    });
    await sandbox.waitForPort(server, port);
    return { sandbox, server, port, env };
  } catch (error) {
    await sandbox.stop();
    throw error;
  }
}

/**
 * Writes the EndpointSlice of Service `namespace/service` naming the pod: each Service port whose target is the
 * pod's port (by number or by the name `https`) maps to it, as the endpoints controller would.
 */
export async function pointServiceAtPod(cluster: LocalClusterInfo, namespace: string, service: string, pod: DeploymentPod): Promise<void> {
  const admin = adminEndpoint(cluster);
  const { spec } = await kubeRequestOk<Service>(admin, `/api/v1/namespaces/${namespace}/services/${service}`);
  const ports = spec.ports
    .filter((p) => p.targetPort === undefined || p.targetPort === pod.port || p.targetPort === "https")
    .map((p) => ({ name: p.name ?? "", port: pod.port }));
  await pointServiceAt(admin, { namespace, service, ip: pod.sandbox.podIp, ports });
}
