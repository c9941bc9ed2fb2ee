/**
 * The resident memory of a local server process (Linux /proc), found by the loopback port it listens
 * on, so that tests and benchmarks can watch a function's memory without the product reporting it.
 */
import { readdir, readFile, readlink } from "node:fs/promises";

/** Socket inodes listening on `port` (IPv4 and IPv6), from /proc/net/tcp{,6}. */
async function listeningInodes(port: number): Promise<Set<string>> {
  const inodes = new Set<string>();
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    const text = await readFile(table, "utf8").catch(() => "");
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address is HEXIP:HEXPORT; state 0A is LISTEN; field 9 is the inode.
      if (fields[1]?.endsWith(`:${hexPort}`) && fields[3] === "0A" && fields[9] !== undefined) inodes.add(fields[9]);
    }
  }
  return inodes;
}

/** The port of a `https://127.0.0.1:<port>` base URL. */
export const serverPort = (baseUrl: string) => Number(new URL(baseUrl).port);

/**
 * The pid of the server behind a `https://127.0.0.1:<port>` base URL: the process that listens on that port.
 * @throws Error when no process (of those this user may inspect) holds such a socket.
 */
export async function findServerPid(baseUrl: string): Promise<number> {
  const port = serverPort(baseUrl);
  const wanted = new Set([...(await listeningInodes(port))].map((inode) => `socket:[${inode}]`));
  for (const entry of wanted.size === 0 ? [] : await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    for (const fd of await readdir(`/proc/${entry}/fd`).catch(() => [] as string[])) {
      if (wanted.has(await readlink(`/proc/${entry}/fd/${fd}`).catch(() => ""))) return Number(entry);
    }
  }
  throw new Error(`no process found listening on port ${port}`);
}

/** The pid of each function's server behind `stack`'s base URLs. */
export async function findStackPids(stack: { expandBaseUrl: string; authorizeBaseUrl: string }) {
  return { expand: await findServerPid(stack.expandBaseUrl), authorize: await findServerPid(stack.authorizeBaseUrl) };
}

/**
 * Resident memory of a process, in bytes: now (VmRSS), its peak so far (VmHWM), and the part of VmRSS that is pages
 * of mapped files (RssFile: the executable's code and data as far as it ran, clean and shared with every process
 * mapping the same file) rather than the process's own allocations.
 */
export interface ProcessMemory {
  rssBytes: number;
  peakRssBytes: number;
  fileBackedBytes: number;
}

/**
 * Reads /proc/<pid>/status.
 * @throws Error when the process is gone.
 */
export async function readProcessMemory(pid: number): Promise<ProcessMemory> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const field = (name: string): number => {
    const kib = new RegExp(`^${name}:\\s+(\\d+) kB$`, "m").exec(status)?.[1];
    if (kib === undefined) throw new Error(`no ${name} for pid ${pid}`);
    return Number(kib) * 1024;
  };
  return { rssBytes: field("VmRSS"), peakRssBytes: field("VmHWM"), fileBackedBytes: field("RssFile") };
}

/** The VmRSS of each named process now. */
export async function readRss<K extends string>(pids: Record<K, number>): Promise<Record<K, number>> {
  const names = Object.keys(pids) as K[];
  const rss = await Promise.all(names.map(async (name) => (await readProcessMemory(pids[name])).rssBytes));
  return Object.fromEntries(names.map((name, i) => [name, rss[i]])) as Record<K, number>;
}

/** Samples the VmRSS of each named process every `everyMs` until `stop()`, which returns each one's peak. */
export function watchRssPeaks<K extends string>(
  pids: Record<K, number>,
  everyMs: number,
): { stop(): Promise<Record<K, number>> } {
  const peak = Object.fromEntries(Object.keys(pids).map((name) => [name, 0])) as Record<K, number>;
  let running = true;
  const loop = (async () => {
    while (running) {
      for (const name of Object.keys(pids) as K[]) {
        peak[name] = Math.max(peak[name], (await readProcessMemory(pids[name])).rssBytes);
      }
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return peak;
    },
  };
}
