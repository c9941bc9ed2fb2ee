/**
 * One real node for the local cluster: containerd v2 with Debian's runc and the CNI bridge, a kubelet registered as
 * {@link NODE_NAME}, and the control plane's kube-controller-manager and kube-scheduler, so Deployments become pods
 * that run the chart's image. Images are imported, never pulled. One node per machine (a lock in /run); every host
 * change is undone by `stop()`, at exit, by the reaper after a crash, or by the next start (node-host.ts).
 * Needs root. docs/development.md ("A real node") lists the settings and the host changes.
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { adminEndpoint, type LocalCluster } from "./cluster.ts";
import { kubeRequest } from "./kube-request.ts";
import { kubeAtLeast, minorOf } from "./kube-versions.ts";
import { writeKubeconfig } from "./kubeconfig.ts";
import type { NodeBinaries } from "./node-binaries.ts";
import {
  cniConfList,
  containerdConfig,
  controllerManagerFlags,
  CRI_NAMESPACE,
  kubeletConfig,
  kubeletFlags,
  NODE_IP,
  NODE_NAME,
  nodePaths,
  schedulerFlags,
} from "./node-config.ts";
import { acquireNodeLock, cleanNodeHost, prepareNodeHost } from "./node-host.ts";
import { nodeBinary } from "../build/tools/node-binary.ts";
import { writePauseImage } from "./pause-image.ts";
import { issueClientCertificate, issueServingCertificate } from "./pki.ts";
import { tailFile } from "../build/tools/tail-file.ts";
import { startProcess, stopProcess, waitFor, type ManagedProcess } from "./processes.ts";
import { createTeardown, recordCleanupCommand, recordProcessGroup } from "./teardown.ts";

const run = promisify(execFile);

/** A running node; `stop()` stops it and undoes its host changes. */
export interface LocalNode {
  name: string;
  /** The node's folder: logs (`kubelet.log`, `containerd.log`, ...), configuration and state. */
  dir: string;
  /** Log files by process name. */
  logFiles: Record<"kubelet" | "containerd" | "kube-scheduler" | "kube-controller-manager", string>;
  /** Imports an OCI image archive into the CRI's image store, as `ctr -n k8s.io images import` does. */
  importImage(archive: string): Promise<void>;
  stop(): Promise<void>;
}

/** Options for {@link startNode}. */
export interface StartNodeOptions {
  binaries: NodeBinaries;
  /** Image archives imported before the kubelet starts (the chart's image). */
  images?: string[];
  /** How long to wait for the node to be Ready; default 180000. */
  readyTimeoutMs?: number;
}

function progress(message: string): void {
  process.stderr.write(`[node] ${message}\n`);
}

async function nodeReady(cluster: LocalCluster): Promise<boolean> {
  const node = await kubeRequest<{ status?: { conditions?: { type: string; status: string }[] } }>(
    adminEndpoint(cluster),
    `/api/v1/nodes/${NODE_NAME}`,
  );
  return (
    node.status === 200 && (node.body.status?.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True")
  );
}

/**
 * Starts the node against `cluster` (which must run with {@link apiserverNodeFlags}, see dev.ts) and waits until it
 * is Ready.
 * @throws Error when another node holds the machine, or with the tail of the logs when a part fails to start;
 * nothing is left behind.
 */
export async function startNode(cluster: LocalCluster, options: StartNodeOptions): Promise<LocalNode> {
  const { binaries } = options;
  // A kubelet newer than its API server is outside Kubernetes' version skew policy (1.37's fails against 1.30).
  if (!kubeAtLeast(cluster.kubeVersion, minorOf(binaries.kubeVersion))) {
    throw new Error(
      `the node's kubelet is ${binaries.kubeVersion} but the API server is ${cluster.kubeVersion}: build the node for the API server's version (ensureNodeBinaries(KUBE_VERSION))`,
    );
  }
  const dir = await mkdtemp(join(tmpdir(), "gmsa-node-"));
  const paths = nodePaths(dir);
  const processes: ManagedProcess[] = [];
  // Host changes are undone only by the run that holds the lock: a refused second node must not clean the first's.
  let locked = false;
  const stopProcesses = async (): Promise<void> => {
    // The kubelet first, so it restarts nothing while containerd goes; then the controllers.
    for (const name of ["kubelet", "containerd", "kube-scheduler", "kube-controller-manager"]) {
      const managed = processes.find((p) => p.name === name);
      if (managed) await stopProcess(managed);
    }
    if (locked) cleanNodeHost(dir);
  };
  const { target, teardown } = createTeardown(dir, stopProcesses);
  const logFiles = {
    kubelet: join(dir, "kubelet.log"),
    containerd: join(dir, "containerd.log"),
    "kube-scheduler": join(dir, "kube-scheduler.log"),
    "kube-controller-manager": join(dir, "kube-controller-manager.log"),
  };
  const ctr = async (args: string[]): Promise<string> =>
    (
      await run(
        join(binaries.containerdDir, "ctr"),
        ["--address", paths.containerdSocket, "-n", CRI_NAMESPACE, ...args],
        { timeout: 120_000 },
      )
    ).stdout;

  try {
    acquireNodeLock(dir);
    locked = true;
    recordCleanupCommand(target, [
      nodeBinary(),
      fileURLToPath(new URL("./node-host.ts", import.meta.url)),
      "clean",
      dir,
    ]);
    prepareNodeHost(dir, Number(new URL(cluster.server).port), binaries.containerdDir);

    const ca = { certFile: cluster.caFile, keyFile: join(cluster.dir, "ca.key"), certPem: cluster.caPem };
    await mkdir(join(dir, "certs"));
    const serving = await issueServingCertificate(ca, join(dir, "certs"), "kubelet-serving", [NODE_NAME, NODE_IP]);
    const client = await issueClientCertificate(
      ca,
      join(dir, "certs"),
      "kubelet-client",
      `system:node:${NODE_NAME}`,
      "system:nodes",
    );
    const kubeletKubeconfig = await writeKubeconfig({
      path: join(dir, "kubelet.kubeconfig"),
      server: cluster.server,
      caPem: cluster.caPem,
      name: NODE_NAME,
      user: { "client-certificate": client.certFile, "client-key": client.keyFile },
    });
    await mkdir(paths.cniConfDir, { recursive: true });
    await mkdir(paths.podLogs, { recursive: true });
    await writeFile(join(paths.cniConfDir, "10-gmsa-node.conflist"), JSON.stringify(cniConfList(paths), null, 2));
    await writeFile(paths.containerdConfig, containerdConfig(paths, binaries.cniDir, binaries.runc));
    await writeFile(
      paths.kubeletConfig,
      JSON.stringify(
        kubeletConfig(
          paths,
          { caFile: cluster.caFile, servingCertFile: serving.certFile, servingKeyFile: serving.keyFile },
          binaries.kubeVersion,
        ),
        null,
        2,
      ),
    );

    // containerd starts the shim it finds first on PATH: v2's own, never another one on the machine.
    const env = {
      ...process.env,
      PATH: [binaries.containerdDir, dirname(binaries.runc), "/usr/sbin", "/usr/bin", "/sbin", "/bin"].join(":"),
    };
    progress("starting containerd");
    const containerd = await startProcess(
      "containerd",
      join(binaries.containerdDir, "containerd"),
      ["--config", paths.containerdConfig],
      logFiles.containerd,
      { env },
    );
    processes.push(containerd);
    recordProcessGroup(target, containerd.pid);
    await waitFor("containerd", 60_000, processes, async () => (await ctr(["version"])).includes("Server"));
    progress("importing the pause image and the chart's image");
    for (const archive of [await writePauseImage(binaries.pause, dir), ...(options.images ?? [])]) {
      await ctr(["images", "import", archive]);
    }

    progress(`starting kubelet, kube-controller-manager and kube-scheduler ${binaries.kubeVersion}`);
    const launches: [string, string, string[]][] = [
      ["kubelet", binaries.kubelet, kubeletFlags(paths, kubeletKubeconfig)],
      [
        "kube-controller-manager",
        binaries.controllerManager,
        controllerManagerFlags(cluster.adminKubeconfig, cluster.caFile, join(cluster.dir, "sa.key")),
      ],
      ["kube-scheduler", binaries.scheduler, schedulerFlags(cluster.adminKubeconfig)],
    ];
    for (const [name, command, args] of launches) {
      const started = await startProcess(name, command, args, logFiles[name as keyof typeof logFiles], { env });
      processes.push(started);
      recordProcessGroup(target, started.pid);
    }
    await waitFor(`node ${NODE_NAME} Ready`, options.readyTimeoutMs ?? 180_000, processes, () => nodeReady(cluster));
    return {
      name: NODE_NAME,
      dir,
      logFiles,
      importImage: async (archive) => {
        await ctr(["images", "import", archive]);
      },
      stop: teardown,
    };
  } catch (error) {
    const tails = await Promise.all(
      processes.map(async (p) => `--- last lines of ${p.name} log ---\n${await tailFile(p.logFile, 25)}`),
    );
    await teardown();
    throw new Error(`local node did not start: ${(error as Error).message}\n${tails.join("\n")}`, { cause: error });
  }
}
