/**
 * A pod's network without a kubelet or a CNI plugin: a network namespace joined to the host by a veth pair, with
 * addresses from a private /30 (the host side `10.200.x.y+1`, the pod `+2`), the pod's default route via the host,
 * and the `kubernetes` Service's ClusterIP ({@link KUBERNETES_SERVICE_IP}) on the host side so a forwarder there can
 * stand in for kube-proxy (kubernetes-service.ts). The API server, on the host, reaches the pod's address directly.
 *
 * Needs root (CAP_NET_ADMIN, CAP_SYS_ADMIN) and iproute2, which {@link ensurePodNetworkTools} installs when missing.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { randomBytes, randomInt } from "node:crypto";
import { promisify } from "node:util";
import { aptInstall } from "./apt.ts";
import { KUBERNETES_SERVICE_IP } from "./server-flags.ts";

const run = promisify(execFile);

/** iproute2's `ip` (Debian ships it in /sbin, which /usr/sbin is on merged-/usr systems). */
export const IP_COMMAND = "/sbin/ip";
/** util-linux's `mount` and coreutils' `chroot`, run inside the namespace by pod-entry.ts. */
export const MOUNT_COMMAND = "/bin/mount";
export const CHROOT_COMMAND = "/usr/sbin/chroot";

/**
 * Installs iproute2, mount and coreutils when missing (apt-get, as root).
 * @throws Error saying so when not running as root: network namespaces and mounts need it (CI runs as root).
 */
export async function ensurePodNetworkTools(): Promise<void> {
  if (process.getuid?.() !== 0) throw new Error("a pod sandbox (network namespace, veth pair, mounts) needs root; run the e2e tests as root");
  if (!existsSync(IP_COMMAND)) await aptInstall("iproute2");
  if (!existsSync(MOUNT_COMMAND)) await aptInstall("mount");
  if (!existsSync(CHROOT_COMMAND)) await aptInstall("coreutils");
}

/** A created pod network; {@link deletePodNetwork} (or the commands in `cleanup`) removes it. */
export interface PodNetwork {
  /** Name of the network namespace (`ip netns exec <name> ...`). */
  namespace: string;
  /** The pod's IPv4 address, what an EndpointSlice names. */
  podIp: string;
  /** The host side of the veth pair: the pod's gateway. */
  hostIp: string;
  /** The host side's interface name. */
  hostInterface: string;
  /** Argument arrays that remove the network (for teardown at exit and the reaper). */
  cleanup: string[][];
}

async function ip(args: string[]): Promise<void> {
  try {
    await run(IP_COMMAND, args, { timeout: 10_000 });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new Error(`ip ${args.join(" ")} failed: ${stderr || (error as Error).message}`, { cause: error });
  }
}

/** IPv4 addresses on this host's interfaces, so a new /30 overlaps none of them. */
async function hostAddresses(): Promise<string> {
  return (await run(IP_COMMAND, ["-4", "-o", "addr", "show"], { timeout: 10_000 })).stdout;
}

/**
 * Where every pod's /30 comes from ({@link pickSubnet}): the host side of each veth pair is in it, so it holds the
 * address the API server calls the pods from, what a NetworkPolicy's `ipBlock` must admit.
 */
export const POD_NETWORK_CIDR = "10.200.0.0/16";

/** A /30 in {@link POD_NETWORK_CIDR} whose addresses no interface uses yet (several test runs may share a machine). */
async function pickSubnet(): Promise<{ hostIp: string; podIp: string }> {
  const used = await hostAddresses();
  for (let attempt = 0; attempt < 50; attempt++) {
    const third = randomInt(0, 256);
    const fourth = randomInt(0, 64) * 4;
    const hostIp = `10.200.${third}.${fourth + 1}`;
    const podIp = `10.200.${third}.${fourth + 2}`;
    if (!used.includes(` 10.200.${third}.${fourth + 1}/`) && !used.includes(` ${podIp}/`)) return { hostIp, podIp };
  }
  throw new Error("no free /30 in 10.200.0.0/16");
}

/**
 * Creates the namespace, the veth pair and the addresses and routes. On failure, removes what it made.
 * @param onCleanupKnown called with the cleanup commands before anything is created, so a teardown can record
 *   them first and a crash half-way still leaves nothing behind.
 * @throws Error naming the `ip` command that failed (typically: not root).
 */
export async function createPodNetwork(onCleanupKnown: (cleanup: string[][]) => void = () => {}): Promise<PodNetwork> {
  await ensurePodNetworkTools();
  const id = randomBytes(3).toString("hex");
  const namespace = `gmsa-pod-${id}`;
  const hostInterface = `gmsa${id}h`;
  const podInterface = `gmsa${id}p`;
  const { hostIp, podIp } = await pickSubnet();
  // Deleting the namespace destroys the pod's end, and with it the pair; deleting the host end is the fallback.
  const cleanup = [
    [IP_COMMAND, "netns", "delete", namespace],
    [IP_COMMAND, "link", "delete", hostInterface],
  ];
  onCleanupKnown(cleanup);
  const network: PodNetwork = { namespace, podIp, hostIp, hostInterface, cleanup };
  try {
    await ip(["netns", "add", namespace]);
    await ip(["link", "add", hostInterface, "type", "veth", "peer", "name", podInterface, "netns", namespace]);
    await ip(["addr", "add", `${hostIp}/30`, "dev", hostInterface]);
    await ip(["addr", "add", `${KUBERNETES_SERVICE_IP}/32`, "dev", hostInterface]);
    await ip(["link", "set", hostInterface, "up"]);
    await ip(["-n", namespace, "link", "set", "lo", "up"]);
    await ip(["-n", namespace, "addr", "add", `${podIp}/30`, "dev", podInterface]);
    await ip(["-n", namespace, "link", "set", podInterface, "up"]);
    await ip(["-n", namespace, "route", "add", "default", "via", hostIp]);
  } catch (error) {
    await deletePodNetwork(network);
    throw error;
  }
  return network;
}

/** Removes the namespace and the veth pair; parts already gone are fine. */
export async function deletePodNetwork(network: PodNetwork): Promise<void> {
  for (const [command, ...args] of network.cleanup) {
    await run(command!, args, { timeout: 10_000 }).catch(() => undefined);
  }
}
