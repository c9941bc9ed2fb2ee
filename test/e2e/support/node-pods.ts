/**
 * Reading the local node's pods from the host, for the in-cluster tests (helm-in-cluster.test.ts): their log files
 * (the kubelet's `podLogsDir`), and the server processes the runtime started, with their credentials, capabilities,
 * seccomp mode, root mount and memory cgroup as the kernel reports them.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The log files of the containers of pods whose name starts with `podPrefix` in `namespace`. */
export function podLogFiles(nodeDir: string, namespace: string, podPrefix: string): string[] {
  const root = join(nodeDir, "pod-logs");
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .filter((dir) => dir.startsWith(`${namespace}_${podPrefix}`))
    .flatMap((dir) =>
      readdirSync(join(root, dir)).flatMap((container) =>
        readdirSync(join(root, dir, container)).map((file) => join(root, dir, container, file)),
      ),
    );
}

/** A server process of a pod, as the kernel sees it. */
export interface PodProcess {
  pid: number;
  /** Real, effective, saved and filesystem uid (`Uid:` of /proc/<pid>/status). */
  uids: number[];
  /** Effective capabilities, hex. */
  capEff: string;
  /** 0 none, 1 strict, 2 filter (a seccomp profile). */
  seccomp: number;
  noNewPrivs: number;
  /** Mount options of the process's root. */
  rootOptions: string[];
  /** The memory cgroup folder (cgroup v1). */
  memoryCgroup: string;
}

/** Every process started from the image's bundle (`dist/node/server.mjs`) in a pod of the node (a kubepods cgroup). */
export function podServerProcesses(): PodProcess[] {
  const found: PodProcess[] = [];
  for (const entry of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      const cgroup = readFileSync(`/proc/${entry}/cgroup`, "utf8");
      if (!cmdline.includes("dist/node/server.mjs") || !cgroup.includes("/kubepods")) continue;
      const status = readFileSync(`/proc/${entry}/status`, "utf8");
      const field = (name: string): string => new RegExp(`^${name}:\\s*(.*)$`, "m").exec(status)?.[1]?.trim() ?? "";
      const rootMount = readFileSync(`/proc/${entry}/mountinfo`, "utf8")
        .split("\n")
        .find((line) => line.split(" ")[4] === "/");
      const memoryPath = /^\d+:memory:(\S+)$/m.exec(cgroup)?.[1] ?? "";
      found.push({
        pid: Number(entry),
        uids: field("Uid").split(/\s+/).map(Number),
        capEff: field("CapEff"),
        seccomp: Number(field("Seccomp")),
        noNewPrivs: Number(field("NoNewPrivs")),
        rootOptions: (rootMount?.split(" ")[5] ?? "").split(","),
        memoryCgroup: join("/sys/fs/cgroup/memory", memoryPath),
      });
    } catch {
      // Exited while being read.
    }
  }
  return found;
}

/** A number from a cgroup v1 memory file, e.g. `memory.limit_in_bytes`. */
export function readMemoryCgroup(folder: string, file: string): number {
  return Number(readFileSync(join(folder, file), "utf8").trim());
}
