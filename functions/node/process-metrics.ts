/**
 * The process metrics of /metrics, under the names every Prometheus client library uses (`process_*`) and the
 * usual Node ones (`nodejs_*`), all read at scrape time: nothing runs between scrapes. The `/proc` figures are
 * left out where there is no `/proc` (a development machine that is not Linux).
 */
import { readdirSync, readFileSync } from "node:fs";
import { sampledFamily, type Family, type Labels } from "./prometheus-text.ts";

const NO_LABELS: Labels = {};

/** The event loop's delay now: how long an immediate callback waits, in seconds. */
export function measureEventLoopLag(): Promise<number> {
  const start = process.hrtime.bigint();
  return new Promise((resolve) => setImmediate(() => resolve(Number(process.hrtime.bigint() - start) / 1e9)));
}

/** The process families, with the event loop lag measured just before (see {@link measureEventLoopLag}). */
export function processFamilies(eventLoopLagSeconds: number): Family[] {
  const cpu = process.cpuUsage();
  const memory = process.memoryUsage();
  const [major = "", minor = "", patch = ""] = process.versions.node.split(".");
  const one = (value: number) => [[NO_LABELS, value] as const];
  const families = [
    sampledFamily("process_cpu_user_seconds_total", "User CPU time spent, in seconds.", "counter", () => one(cpu.user / 1e6)),
    sampledFamily("process_cpu_system_seconds_total", "System CPU time spent, in seconds.", "counter", () => one(cpu.system / 1e6)),
    sampledFamily("process_cpu_seconds_total", "User and system CPU time spent, in seconds.", "counter", () => one((cpu.user + cpu.system) / 1e6)),
    sampledFamily("process_start_time_seconds", "Start time of the process since the Unix epoch, in seconds.", "gauge", () =>
      one(Math.round(Date.now() / 1000 - process.uptime())),
    ),
    sampledFamily("process_resident_memory_bytes", "Resident memory size, in bytes.", "gauge", () => one(memory.rss)),
    sampledFamily("nodejs_heap_size_total_bytes", "V8 heap size, in bytes.", "gauge", () => one(memory.heapTotal)),
    sampledFamily("nodejs_heap_size_used_bytes", "V8 heap used, in bytes.", "gauge", () => one(memory.heapUsed)),
    sampledFamily("nodejs_external_memory_bytes", "Memory of C++ objects bound to JavaScript objects, in bytes.", "gauge", () => one(memory.external)),
    sampledFamily("nodejs_eventloop_lag_seconds", "Event loop delay at the scrape, in seconds.", "gauge", () => one(eventLoopLagSeconds)),
    sampledFamily("nodejs_version_info", "Node.js version.", "gauge", () => [[{ version: process.version, major, minor, patch }, 1] as const]),
  ];
  const virtualBytes = readProc(() => Number(/^VmSize:\s+(\d+) kB$/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1]) * 1024);
  if (virtualBytes !== undefined) families.push(sampledFamily("process_virtual_memory_bytes", "Virtual memory size, in bytes.", "gauge", () => one(virtualBytes)));
  // readdir's own descriptor is in the list.
  const openFds = readProc(() => readdirSync("/proc/self/fd").length - 1);
  if (openFds !== undefined) families.push(sampledFamily("process_open_fds", "Open file descriptors.", "gauge", () => one(openFds)));
  const maxFds = readProc(() => Number(/^Max open files\s+(\d+)/m.exec(readFileSync("/proc/self/limits", "utf8"))?.[1]));
  if (maxFds !== undefined) families.push(sampledFamily("process_max_fds", "Maximum number of open file descriptors.", "gauge", () => one(maxFds)));
  return families;
}

/** A `/proc` figure, or undefined where it cannot be read. */
function readProc(read: () => number): number | undefined {
  try {
    const value = read();
    return Number.isFinite(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
