/**
 * What the local node changes on the host, and how each change is undone: the lock that allows one node per
 * machine, the bridge and its route to the API server, the sysctls the kubelet sets, the iptables chains of the
 * kubelet and the CNI plugins, pods' processes, mounts and cgroups, and containerd's fixed paths. Cleaning is
 * synchronous and idempotent, so the exit handler, the reaper (as `node node-host.ts clean <dir>`) and the next
 * start after a crash all run the same code. Needs root, as the kubelet does.
 */
import { execFileSync } from "node:child_process";
import {
  existsSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { isAlive } from "./processes.ts";
import { NODE_BRIDGE, NODE_IP, NODE_NAME, POD_CIDR } from "./node-config.ts";
import { KUBERNETES_SERVICE_IP } from "./server-flags.ts";

/** The lock file: JSON `{ pid, dir }` of the node that holds this machine. */
export const NODE_LOCK = "/run/gmsa-webhooks-node.lock";
/** Sysctls the kubelet and the bridge plugin set, restored at stop. */
const SYSCTLS = ["vm/overcommit_memory", "kernel/panic", "kernel/panic_on_oops", "net/ipv4/ip_forward"];
/** Tag on our own iptables rule, so it is found and deleted. */
const RULE_COMMENT = "gmsa-webhooks-node";
/** Paths containerd uses whatever its configuration says (shim sockets), removed when they were not there before. */
const FIXED_PATHS = ["/run/containerd", "/var/lib/cni"];
const CGROUP_ROOT = "/sys/fs/cgroup";

interface HostState {
  sysctls: Record<string, string>;
  /** Fixed paths that did not exist before the node started. */
  createdPaths: string[];
  /** Network namespaces (`/run/netns/<name>`) that existed before. */
  netnsBefore: string[];
  /** Our containerd's shim binary (real path): only its processes are killed. */
  shim: string;
  /** `iptables-save` of each table before the node started: rules and chains found there are left alone. */
  iptables: Record<string, string>;
  /** The same for `ip6tables-save`: the kubelet adds its KUBE-* chains to both families. Absent in older states. */
  ip6tables?: Record<string, string>;
}

type IptablesFamily = "iptables" | "ip6tables";

const TABLES = ["filter", "nat", "mangle"];

function iptablesSave(table: string, family: IptablesFamily = "iptables"): string {
  try {
    return sh(`${family}-save`, ["-t", table]);
  } catch {
    return "";
  }
}

function sh(command: string, args: string[], input?: string): string {
  return execFileSync(command, args, {
    encoding: "utf8",
    timeout: 10_000,
    stdio: ["pipe", "pipe", "pipe"],
    ...(input === undefined ? {} : { input }),
  });
}

function trySh(command: string, args: string[], input?: string): void {
  try {
    sh(command, args, input);
  } catch {
    // Already undone (or never done): cleaning must go on with the rest.
  }
}

function netnsNames(): string[] {
  try {
    return readdirSync("/run/netns");
  } catch {
    return [];
  }
}

/** The pid and folder of the live node holding this machine, if any. */
function liveNode(): { pid: number; dir: string } | undefined {
  if (!existsSync(NODE_LOCK)) return undefined;
  const held = JSON.parse(readFileSync(NODE_LOCK, "utf8")) as { pid: number; dir: string };
  return held.pid !== process.pid && isAlive(held.pid) ? held : undefined;
}

function refusal(held: { pid: number; dir: string }): Error {
  return new Error(
    `a local node already runs on this machine (pid ${held.pid}, folder ${held.dir}): the kubelet and containerd use ` +
      `fixed host ports and paths, so there is one node per machine. Stop that run (Ctrl-C) or wait for it to end.`,
  );
}

/**
 * Fails early, before anything starts, when another live run holds the node lock.
 * @throws Error naming the running node's pid and folder.
 */
export function assertNoLiveNode(): void {
  const held = liveNode();
  if (held) throw refusal(held);
}

/**
 * Takes the machine's node lock for `dir`. A lock left by a dead run is cleaned up first (its host changes undone).
 * @throws Error naming the running node's pid and folder when one holds the lock.
 */
export function acquireNodeLock(dir: string): void {
  const live = liveNode();
  if (live) throw refusal(live);
  if (existsSync(NODE_LOCK)) {
    const held = JSON.parse(readFileSync(NODE_LOCK, "utf8")) as { pid: number; dir: string };
    process.stderr.write(`[node] cleaning up after a node that died (pid ${held.pid}, folder ${held.dir})\n`);
    cleanNodeHost(held.dir);
  }
  writeFileSync(NODE_LOCK, JSON.stringify({ pid: process.pid, dir }), { flag: "wx" });
}

/**
 * Prepares the host for the node whose folder is `dir` (the lock must be held): saves what cleaning restores, creates
 * the bridge with the node's address, and routes pods' connections to the `kubernetes` Service's ClusterIP to the API
 * server on loopback (one DNAT rule standing in for kube-proxy; the bridge allows it with `route_localnet`).
 */
export function prepareNodeHost(dir: string, apiserverPort: number, containerdDir: string): void {
  const foreign = existsSync(join(CGROUP_ROOT, "memory", "kubepods"))
    ? cgroupPids(join(CGROUP_ROOT, "memory", "kubepods"))
    : [];
  if (foreign.length > 0) {
    throw new Error(
      `another kubelet's pods run on this machine (${foreign.length} processes in the kubepods cgroup): the local node would share its cgroups and iptables chains; stop it first`,
    );
  }
  const state: HostState = {
    shim: realpathSync(join(containerdDir, "containerd-shim-runc-v2")),
    iptables: Object.fromEntries(TABLES.map((table) => [table, iptablesSave(table)])),
    ip6tables: Object.fromEntries(TABLES.map((table) => [table, iptablesSave(table, "ip6tables")])),
    sysctls: Object.fromEntries(SYSCTLS.map((name) => [name, readFileSync(`/proc/sys/${name}`, "utf8").trim()])),
    createdPaths: FIXED_PATHS.filter((path) => !existsSync(path)),
    netnsBefore: netnsNames(),
  };
  writeFileSync(join(dir, "host-state.json"), JSON.stringify(state));
  sh("ip", ["link", "add", NODE_BRIDGE, "type", "bridge"]);
  sh("ip", ["addr", "add", `${NODE_IP}/${POD_CIDR.split("/")[1]}`, "dev", NODE_BRIDGE]);
  sh("ip", ["link", "set", NODE_BRIDGE, "up"]);
  writeFileSync(`/proc/sys/net/ipv4/conf/${NODE_BRIDGE}/route_localnet`, "1");
  sh("iptables", ["-t", "nat", "-A", "PREROUTING", ...apiserverRule(apiserverPort)]);
}

function apiserverRule(port: number): string[] {
  return [
    ...["-i", NODE_BRIDGE, "-d", `${KUBERNETES_SERVICE_IP}/32`, "-p", "tcp", "--dport", "443"],
    ...["-m", "comment", "--comment", RULE_COMMENT, "-j", "DNAT", "--to-destination", `127.0.0.1:${port}`],
  ];
}

/** Pids in every cgroup under `path` (one controller's hierarchy). */
function cgroupPids(path: string): number[] {
  if (!existsSync(path)) return [];
  const pids = readFileSync(join(path, "cgroup.procs"), "utf8").split("\n").filter(Boolean).map(Number);
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (entry.isDirectory()) pids.push(...cgroupPids(join(path, entry.name)));
  }
  return pids;
}

/** Removes a cgroup folder tree bottom-up (rmdir only: the kernel refuses while a process is inside). */
function removeCgroup(path: string): void {
  if (!existsSync(path)) return;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (entry.isDirectory()) removeCgroup(join(path, entry.name));
  }
  try {
    rmdirSync(path);
  } catch {
    // Busy for a moment after its last process died; the next clean takes it.
  }
}

/** containerd shims started from our binary `shim` (each leads its own process group, outside ours). */
function shimPids(shim: string | undefined): number[] {
  if (shim === undefined) return [];
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readlinkSync(`/proc/${entry}/exe`) === shim) pids.push(Number(entry));
    } catch {
      // Gone, or a kernel thread.
    }
  }
  return pids;
}

/** Mount points under any of `prefixes`, deepest first. */
function mountsUnder(prefixes: string[]): string[] {
  const points = readFileSync("/proc/self/mountinfo", "utf8")
    .split("\n")
    .map((line) => line.split(" ")[4]?.replace(/\\040/g, " "))
    .filter(
      (point): point is string =>
        point !== undefined && prefixes.some((prefix) => point === prefix || point.startsWith(`${prefix}/`)),
    );
  return [...new Set(points)].sort((a, b) => b.length - a.length);
}

/**
 * Deletes the iptables rules and chains the kubelet (KUBE-*) and the CNI plugins (CNI-*) added, and our DNAT rule:
 * what `before` (the tables' state when the node started) does not hold.
 */
function cleanIptables(before: Record<string, string>, family: IptablesFamily = "iptables"): void {
  for (const table of TABLES) {
    const saved = iptablesSave(table, family);
    if (saved === "") continue;
    const old = before[table] ?? "";
    const oldChains = new Set([...old.matchAll(/^:(\S+) /gm)].map((match) => match[1]!));
    const oldRules = new Set(old.split("\n"));
    const ours = (chain: string): boolean => /^(KUBE-|CNI-)/.test(chain) && !oldChains.has(chain);
    const chains = [...saved.matchAll(/^:(\S+) /gm)].map((match) => match[1]!).filter(ours);
    const rules = saved
      .split("\n")
      .filter((line) => line.startsWith("-A ") && !oldRules.has(line))
      .filter((line) => {
        const [, chain = ""] = line.split(" ");
        const target = / -j (\S+)/.exec(line)?.[1] ?? "";
        return (
          !ours(chain) && (ours(target) || line.includes(`"${RULE_COMMENT}"`) || line.includes(` ${RULE_COMMENT} `))
        );
      });
    if (chains.length === 0 && rules.length === 0) continue;
    const script = [
      `*${table}`,
      ...rules.map((line) => line.replace(/^-A /, "-D ")),
      ...chains.map((chain) => `-F ${chain}`),
      ...chains.map((chain) => `-X ${chain}`),
      "COMMIT",
      "",
    ].join("\n");
    trySh(`${family}-restore`, ["--noflush"], script);
  }
}

/**
 * Undoes every host change of the node whose folder was `dir`: kills the pods' processes and the shims, unmounts what
 * the kubelet and containerd mounted, deletes the pods' network namespaces, the bridge, the iptables chains and the
 * kubepods cgroups, restores the sysctls, removes fixed paths that did not exist before, and releases the lock.
 * Leaves `dir` itself to the caller. Synchronous, so it runs in an `exit` handler.
 */
export function cleanNodeHost(dir: string): void {
  let state: HostState | undefined;
  try {
    state = JSON.parse(readFileSync(join(dir, "host-state.json"), "utf8")) as HostState;
  } catch {
    state = undefined;
  }
  const controllers = existsSync(CGROUP_ROOT)
    ? readdirSync(CGROUP_ROOT).filter((name) => existsSync(join(CGROUP_ROOT, name, "kubepods")))
    : [];
  for (let round = 0; round < 3; round++) {
    const pids = new Set([
      ...controllers.flatMap((name) => cgroupPids(join(CGROUP_ROOT, name, "kubepods"))),
      ...shimPids(state?.shim),
    ]);
    if (pids.size === 0) break;
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Exited meanwhile.
      }
    }
    execFileSync("sleep", ["0.3"]);
  }
  const newNetns = netnsNames().filter((name) => /^cni-/.test(name) && !(state?.netnsBefore ?? []).includes(name));
  for (const point of mountsUnder([dir, "/run/containerd", ...newNetns.map((name) => `/run/netns/${name}`)])) {
    trySh("umount", ["-l", point]);
  }
  for (const name of newNetns) rmSync(`/run/netns/${name}`, { force: true });
  trySh("ip", ["link", "del", NODE_BRIDGE]);
  // Without the saved state (a run that died before saving it) there is nothing of ours to tell apart: only our rule.
  cleanIptables(
    state?.iptables ??
      Object.fromEntries(TABLES.map((table) => [table, iptablesSave(table).replace(/^.*gmsa-webhooks-node.*$/gm, "")])),
  );
  // No saved ip6tables state (none saved, or a state from before it was saved): leave IPv6 as it is.
  if (state?.ip6tables !== undefined) cleanIptables(state.ip6tables, "ip6tables");
  for (const name of controllers) removeCgroup(join(CGROUP_ROOT, name, "kubepods"));
  for (const [name, value] of Object.entries(state?.sysctls ?? {})) {
    try {
      writeFileSync(`/proc/sys/${name}`, value);
    } catch {
      // Read-only in this container: nothing was changed there either.
    }
  }
  for (const path of state?.createdPaths ?? []) rmSync(path, { recursive: true, force: true });
  for (const file of existsSync("/var/lib/cni/results") ? readdirSync("/var/lib/cni/results") : []) {
    if (file.startsWith(`${NODE_NAME}-`)) rmSync(join("/var/lib/cni/results", file), { force: true });
  }
  try {
    const held = JSON.parse(readFileSync(NODE_LOCK, "utf8")) as { dir: string };
    if (held.dir === dir) rmSync(NODE_LOCK, { force: true });
  } catch {
    // No lock: nothing to release.
  }
}

if (import.meta.main && process.argv[2] === "clean" && process.argv[3]) cleanNodeHost(process.argv[3]);
