/**
 * Configuration of the local node (node.ts): kubelet, containerd and CNI files, and the command lines of kubelet,
 * kube-scheduler and kube-controller-manager, in one place so what runs is easy to read. docs/development.md
 * ("A real node") says why each setting is there.
 */
import { join } from "node:path";
import { KUBE_FEATURES, kubeAtLeast } from "./kube-versions.ts";

/** The node's name, as `kubectl get nodes` shows it. */
export const NODE_NAME = "gmsa-node";
/** The Linux bridge pods attach to; created before the kubelet starts and removed at stop. */
export const NODE_BRIDGE = "gmsa-cni0";
/** Pods' addresses; the bridge holds the first as the pods' gateway. */
export const POD_CIDR = "10.244.0.0/24";
/**
 * The node's InternalIP: the bridge's address, not loopback (the API server reaches the kubelet there, and the
 * kubelet's serving certificate names it).
 */
export const NODE_IP = "10.244.0.1";
/**
 * The node's taint: only pods that tolerate it (the chart's, with {@link NODE_TOLERATION}) run here. The e2e tier's
 * other pods (Windows images, admission tests) stay Pending rather than make the kubelet try a registry.
 */
export const NODE_TAINT = { key: "gmsa-webhooks.local/node", value: "chart", effect: "NoSchedule" } as const;
/** The toleration of {@link NODE_TAINT}, for the chart's `tolerations`. */
export const NODE_TOLERATION = { ...NODE_TAINT, operator: "Equal" } as const;
/** The image containerd runs pod sandboxes from (pause-image.ts), imported before the kubelet starts. */
export const PAUSE_IMAGE = "gmsa-webhooks.local/pause:1";
/** containerd's namespace for the CRI: what `ctr -n` names to see the kubelet's images and containers. */
export const CRI_NAMESPACE = "k8s.io";

/** Where one node keeps everything it writes (a temporary folder). */
export interface NodePaths {
  dir: string;
  containerdConfig: string;
  containerdSocket: string;
  containerdRoot: string;
  containerdState: string;
  cniConfDir: string;
  cniDataDir: string;
  kubeletConfig: string;
  kubeletRoot: string;
  podLogs: string;
}

/** The files of a node whose folder is `dir`. */
export function nodePaths(dir: string): NodePaths {
  return {
    dir,
    containerdConfig: join(dir, "containerd.toml"),
    containerdSocket: join(dir, "containerd", "containerd.sock"),
    containerdRoot: join(dir, "containerd", "root"),
    containerdState: join(dir, "containerd", "state"),
    cniConfDir: join(dir, "cni", "net.d"),
    cniDataDir: join(dir, "cni", "ipam"),
    kubeletConfig: join(dir, "kubelet.yaml"),
    kubeletRoot: join(dir, "kubelet"),
    podLogs: join(dir, "pod-logs"),
  };
}

/**
 * containerd v2's configuration (version 3): its data and socket in the node's folder, the CRI with Debian's runc
 * (cgroupfs, as the kubelet), our CNI plugins, and our pause image.
 */
export function containerdConfig(paths: NodePaths, cniBinDir: string, runc: string): string {
  return `version = 3
root = ${JSON.stringify(paths.containerdRoot)}
state = ${JSON.stringify(paths.containerdState)}
disabled_plugins = ["io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.blockfile", "io.containerd.snapshotter.v1.erofs"]

[grpc]
  address = ${JSON.stringify(paths.containerdSocket)}

[plugins."io.containerd.cri.v1.runtime"]
  # The machine's bounding set lacks CAP_SYS_RESOURCE: containerd must not lower a container's oom_score_adj
  # below its own.
  restrict_oom_score_adj = true
  [plugins."io.containerd.cri.v1.runtime".containerd]
    default_runtime_name = "runc"
    [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc.options]
        BinaryName = ${JSON.stringify(runc)}
        SystemdCgroup = false
  [plugins."io.containerd.cri.v1.runtime".cni]
    bin_dirs = [${JSON.stringify(cniBinDir)}]
    conf_dir = ${JSON.stringify(paths.cniConfDir)}

[plugins."io.containerd.cri.v1.images"]
  [plugins."io.containerd.cri.v1.images".pinned_images]
    sandbox = ${JSON.stringify(PAUSE_IMAGE)}
`;
}

/** The CNI network: pods on {@link NODE_BRIDGE} with addresses from {@link POD_CIDR}, and host ports. */
export function cniConfList(paths: NodePaths): unknown {
  return {
    cniVersion: "1.0.0",
    name: NODE_NAME,
    plugins: [
      {
        type: "bridge",
        bridge: NODE_BRIDGE,
        isGateway: true,
        // Pods talk to the API server and each other only, all on this machine: no masquerading.
        ipMasq: false,
        ipam: {
          type: "host-local",
          ranges: [[{ subnet: POD_CIDR, gateway: NODE_IP }]],
          routes: [{ dst: "0.0.0.0/0" }],
          dataDir: paths.cniDataDir,
        },
      },
      { type: "portmap", capabilities: { portMappings: true } },
    ],
  };
}

/** Certificates and credentials the kubelet is given. */
export interface KubeletFiles {
  caFile: string;
  servingCertFile: string;
  servingKeyFile: string;
}

/**
 * The kubelet's configuration file (KubeletConfiguration v1beta1) for a kubelet of `kubeVersion` (`v1.30.14`): only
 * the fields that version knows.
 */
export function kubeletConfig(paths: NodePaths, files: KubeletFiles, kubeVersion: string): unknown {
  return {
    apiVersion: "kubelet.config.k8s.io/v1beta1",
    kind: "KubeletConfiguration",
    // These machines have cgroup v1, which the kubelet refuses by default from 1.35 on (KEP-5573).
    ...(kubeAtLeast(kubeVersion, KUBE_FEATURES.kubeletFailCgroupV1) ? { failCgroupV1: false } : {}),
    cgroupDriver: "cgroupfs",
    containerRuntimeEndpoint: `unix://${paths.containerdSocket}`,
    address: NODE_IP,
    port: 10250,
    readOnlyPort: 0,
    healthzBindAddress: "127.0.0.1",
    healthzPort: 0,
    tlsCertFile: files.servingCertFile,
    tlsPrivateKeyFile: files.servingKeyFile,
    authentication: { anonymous: { enabled: false }, webhook: { enabled: true }, x509: { clientCAFile: files.caFile } },
    authorization: { mode: "Webhook" },
    podLogsDir: paths.podLogs,
    failSwapOn: false,
    // Only the signals the kubelet evicts for, at levels a shared 2-core machine never reaches: eviction would
    // take the function's pods away mid-test.
    evictionHard: {
      "memory.available": "100Mi",
      "nodefs.available": "1%",
      "imagefs.available": "1%",
      "nodefs.inodesFree": "1%",
    },
    imageGCHighThresholdPercent: 100,
    imageGCLowThresholdPercent: 99,
    serializeImagePulls: false,
    clusterDomain: "cluster.local",
    resolvConf: "/etc/resolv.conf",
    shutdownGracePeriod: "0s",
    syncFrequency: "10s",
    fileCheckFrequency: "0s",
  };
}

/** The kubelet's command line. */
export function kubeletFlags(paths: NodePaths, kubeconfig: string): string[] {
  return [
    `--config=${paths.kubeletConfig}`,
    `--kubeconfig=${kubeconfig}`,
    `--root-dir=${paths.kubeletRoot}`,
    `--hostname-override=${NODE_NAME}`,
    `--node-ip=${NODE_IP}`,
    `--register-with-taints=${NODE_TAINT.key}=${NODE_TAINT.value}:${NODE_TAINT.effect}`,
    "--v=1",
  ];
}

/** kube-controller-manager: every default controller, no leader election, the cluster CA for kube-root-ca.crt. */
export function controllerManagerFlags(kubeconfig: string, caFile: string, serviceAccountKeyFile: string): string[] {
  return [
    `--kubeconfig=${kubeconfig}`,
    `--root-ca-file=${caFile}`,
    `--service-account-private-key-file=${serviceAccountKeyFile}`,
    "--use-service-account-credentials=false",
    "--leader-elect=false",
    "--secure-port=0",
    // Seconds, not the default minute, between a pod's eviction and its replacement being counted.
    "--node-monitor-grace-period=20s",
    "--v=1",
  ];
}

/** kube-scheduler: no leader election, no serving port. */
export function schedulerFlags(kubeconfig: string): string[] {
  return [`--kubeconfig=${kubeconfig}`, "--leader-elect=false", "--secure-port=0", "--v=1"];
}

/** Flags the API server needs to reach the node's kubelet by its InternalIP and verify its certificate. */
export function apiserverNodeFlags(caFile: string, clientCertFile: string, clientKeyFile: string): string[] {
  return [
    "--kubelet-preferred-address-types=InternalIP",
    `--kubelet-certificate-authority=${caFile}`,
    `--kubelet-client-certificate=${clientCertFile}`,
    `--kubelet-client-key=${clientKeyFile}`,
  ];
}
