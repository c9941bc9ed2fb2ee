/** CPU time a process has used (Linux /proc/<pid>/stat), to charge a benchmark row's work to a server. */
import { readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";

/** Clock ticks per second of utime/stime (almost always 100), read at the first use, not at import. */
let ticksPerSecond: number | undefined;

/** User plus system CPU time of `pid` so far, µs (resolution 10 ms). @throws Error when the process is gone. */
export function readProcessCpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command (which may hold spaces) start at the state, field 3; utime and stime are 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  ticksPerSecond ??= Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / ticksPerSecond;
}
