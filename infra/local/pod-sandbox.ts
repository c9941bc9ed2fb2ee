/**
 * A pod for the local cluster, which has no kubelet: our server run in a network namespace of its own
 * (pod-network.ts), with a pod IP the API server reaches, the environment and volumes a container would get, and
 * the `kubernetes` Service reachable at its ClusterIP (kubernetes-service.ts). What kube-proxy and the endpoints
 * controller would do is the caller's: it writes the EndpointSlice (service-endpoints.ts), and kube-apiserver with
 * `--enable-aggregator-routing` calls a webhook's Service at that slice's address.
 *
 * ```ts
 * const sandbox = await startPodSandbox(cluster);
 * await sandbox.startContainer({ name: "authorize", command: nodeBinary(), args: [NODE_ENTRY], env, volumes });
 * // ... apply a Service and pointServiceAt(admin, { ..., ip: sandbox.podIp })
 * await sandbox.stop();
 * ```
 *
 * Needs root. Everything (processes, namespace, veth pair, folder) is removed by `stop()`, at exit, on signals,
 * and by the reaper when the test process is killed outright.
 */
import { chown, mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { LocalClusterInfo } from "./cluster.ts";
import { startKubernetesService, type KubernetesServiceForwarder } from "./kubernetes-service.ts";
import { nodeBinary } from "./node-binary.ts";
import type { PodEntrySpec } from "./pod-entry.ts";
import { CHROOT_COMMAND, createPodNetwork, deletePodNetwork, IP_COMMAND, MOUNT_COMMAND, type PodNetwork } from "./pod-network.ts";
import { startProcess, stopProcess, tailFile, waitFor, type ManagedProcess } from "./processes.ts";
import { createTeardown, recordCleanupCommand, recordProcessGroup } from "./teardown.ts";

/** Whether a TCP connection to `host:port` opens within 2 s. */
function canConnect(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 2000 });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
    socket.once("timeout", () => done(false));
  });
}

const POD_ENTRY = fileURLToPath(new URL("./pod-entry.ts", import.meta.url));

/** A volume as the container sees it: files by name under `mountPath`. */
export interface PodVolume {
  mountPath: string;
  files: Record<string, string>;
}

/** One container of the pod. */
export interface PodContainer {
  /** Names its folder and its log file. */
  name: string;
  command: string;
  args: string[];
  /**
   * The container's own environment; the runtime's `PATH`, `HOME` and `HOSTNAME` and the kubelet's
   * `KUBERNETES_SERVICE_*` come first.
   */
  env: Record<string, string>;
  volumes: PodVolume[];
  /** `securityContext.runAsUser` / `runAsGroup`: the process's ids, and the owner of the volumes' files. */
  runAsUser?: number;
  runAsGroup?: number;
  /** `securityContext.readOnlyRootFilesystem`. */
  readOnlyRootFilesystem?: boolean;
}

/** A started container. */
export interface StartedPodContainer {
  process: ManagedProcess;
  /** Its stdout and stderr, kept until the sandbox stops. */
  logFile: string;
}

/** A running sandbox. */
export interface PodSandbox {
  /** The pod's IPv4 address (what an EndpointSlice names). */
  podIp: string;
  /** The network namespace's name. */
  network: string;
  /** The sandbox's temporary folder (volumes, logs). */
  dir: string;
  /** `KUBERNETES_SERVICE_HOST` and `KUBERNETES_SERVICE_PORT`, as the kubelet sets them. */
  kubernetesServiceEnv: Record<string, string>;
  startContainer(container: PodContainer): Promise<StartedPodContainer>;
  /**
   * Waits until the container accepts TCP connections on `port` at the pod IP (a kubelet `tcpSocket` probe),
   * default 60000 ms. @throws Error with the tail of its log when it exits or the time runs out first.
   */
  waitForPort(started: StartedPodContainer, port: number, timeoutMs?: number): Promise<void>;
  /** Stops the containers, the forwarder, removes the network and the folder. Idempotent. */
  stop(): Promise<void>;
}

/** Options of {@link startPodSandbox}. */
export interface PodSandboxOptions {
  /** Parent folder of the sandbox's folder; default the OS temp folder. */
  dir?: string;
  /** The pod's name, its `HOSTNAME`; default `gmsa-pod`. */
  hostname?: string;
}

/**
 * Creates the pod network and the `kubernetes` Service forwarder to `cluster`'s API server.
 * @throws Error when the network cannot be created (not root); nothing is left behind.
 */
export async function startPodSandbox(cluster: LocalClusterInfo, options: PodSandboxOptions = {}): Promise<PodSandbox> {
  const dir = await mkdtemp(join(options.dir ?? tmpdir(), "gmsa-pod-"));
  const containers: ManagedProcess[] = [];
  let network: PodNetwork | undefined;
  let forwarder: KubernetesServiceForwarder | undefined;
  const { target, teardown } = createTeardown(dir, async () => {
    await Promise.all(containers.map((process) => stopProcess(process)));
    await forwarder?.close();
    if (network !== undefined) await deletePodNetwork(network);
  });
  try {
    network = await createPodNetwork((cleanup) => cleanup.forEach((command) => recordCleanupCommand(target, command)));
    forwarder = await startKubernetesService(cluster.server);
  } catch (error) {
    await teardown();
    throw error;
  }
  const { namespace, podIp } = network;
  const kubernetesServiceEnv = forwarder.env;

  const startContainer = async (container: PodContainer): Promise<StartedPodContainer> => {
    const containerDir = join(dir, container.name);
    const user =
      container.runAsUser === undefined ? undefined : { uid: container.runAsUser, gid: container.runAsGroup ?? container.runAsUser };
    const mounts: PodEntrySpec["mounts"] = [];
    for (const [index, volume] of container.volumes.entries()) {
      const source = join(containerDir, "volumes", String(index));
      await mkdir(source, { recursive: true });
      for (const [name, contents] of Object.entries(volume.files)) {
        await writeFile(join(source, name), contents, { mode: 0o600 });
        // Readable by the container's user only, as the kubelet leaves a projected service-account token.
        if (user !== undefined) await chown(join(source, name), user.uid, user.gid);
      }
      mounts.push({ source, mountPath: volume.mountPath });
    }
    const spec: PodEntrySpec = {
      mounts,
      scratchDir: join(containerDir, "root"),
      command: container.command,
      args: container.args,
      ...(user === undefined ? {} : { user }),
      readOnlyRootFilesystem: container.readOnlyRootFilesystem ?? false,
      mountCommand: MOUNT_COMMAND,
      chrootCommand: CHROOT_COMMAND,
    };
    const specFile = join(containerDir, "spec.json");
    await writeFile(specFile, JSON.stringify(spec));
    const logFile = join(dir, `${container.name}.log`);
    const env = {
      PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
      // What container runtimes set for a user the image's /etc/passwd does not name.
      HOME: "/",
      HOSTNAME: options.hostname ?? "gmsa-pod",
      ...kubernetesServiceEnv,
      ...container.env,
    };
    const started = await startProcess(`${container.name} (pod ${podIp})`, IP_COMMAND, ["netns", "exec", namespace, nodeBinary(), POD_ENTRY, specFile], logFile, {
      env,
    });
    containers.push(started);
    recordProcessGroup(target, started.pid);
    return { process: started, logFile };
  };

  const waitForPort = async (started: StartedPodContainer, port: number, timeoutMs = 60_000): Promise<void> => {
    try {
      await waitFor(`${started.process.name} on port ${port}`, timeoutMs, [started.process], () => canConnect(podIp, port));
    } catch (error) {
      throw new Error(`${(error as Error).message}\n--- last lines of ${started.logFile} ---\n${await tailFile(started.logFile)}`, { cause: error });
    }
  };

  return { podIp, network: namespace, dir, kubernetesServiceEnv, startContainer, waitForPort, stop: teardown };
}
