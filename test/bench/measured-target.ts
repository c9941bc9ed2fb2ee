/**
 * A webhook server process the bench can load and measure (ours, or the Go reference given by GMSA_REF_BIN), and the
 * CPU time it has used (Linux /proc/<pid>/stat), to charge a benchmark row's work to it.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import type { FunctionsStack } from "../../infra/local/index.ts";
import { FUNCTION_NAMES, type FunctionName } from "../../shared/config/index.ts";
import { findServerPid } from "../e2e/support/process-memory.ts";
import { reviewUrl } from "./reviews.ts";

export interface MeasuredTarget {
  /** Shown in the tables, e.g. "gmsa-webhooks node" or "windows-gmsa (Go)". */
  server: string;
  fn: FunctionName;
  /** The process whose RSS and CPU time are read from /proc. */
  pid: number;
  /** Full https URL an AdmissionReview is POSTed to. */
  url: string;
  /** Extra request headers (our bearer caller auth; none for the reference). */
  headers: Record<string, string>;
  /** PEM of the CA that signed the server's certificate. */
  ca: string;
}

/** Both functions of one server process (`pid`) or of a stack (a pid each), shown as `server`, with certificates `ca` signed. */
export function serverTargets(
  server: string,
  ca: string,
  pid: (fn: FunctionName) => number,
  url: (fn: FunctionName) => string,
  headers: Record<string, string> = {},
): MeasuredTarget[] {
  return FUNCTION_NAMES.map((fn) => ({ server, fn, pid: pid(fn), url: url(fn), headers, ca }));
}

/** Both functions of a running stack, shown as `server`, their certificates signed by `ca`. */
export async function stackTargets(stack: FunctionsStack, server: string, ca: string): Promise<MeasuredTarget[]> {
  const pids = {
    expand: await findServerPid(stack.expandBaseUrl),
    authorize: await findServerPid(stack.authorizeBaseUrl),
  };
  const headers = { authorization: `Bearer ${stack.callerToken}` };
  return serverTargets(
    server,
    ca,
    (fn) => pids[fn],
    (fn) => reviewUrl(stack, fn),
    headers,
  );
}

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
