/**
 * A webhook server process the bench loads and measures (ours, or the Go reference): the review bodies it is sent and
 * the answer expected, its CPU time (/proc/<pid>/stat), and section G's Node processes, started fresh for idle memory.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildNodeTarget } from "../../infra/build/node/bundle-function.ts";
import { NODE_SERVER_OPTIONS } from "../../infra/build/node/heap-limits.ts";
import { startFunctions, type FunctionsStack, type LocalClusterInfo } from "../../infra/local/index.ts";
import { FUNCTION_NAMES, type FunctionName } from "../../shared/config/index.ts";
import { findStackPids } from "../e2e/support/process-memory.ts";
import { buildBenchPod, CONTAINER_COUNTS, inlinedContents, reviewBody, type ContainerCount } from "./bench-pods.ts";
import type { LoadOptions } from "./load.ts";
import { startMinimalWebhook } from "./minimal-webhook.ts";

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
  const pids = await findStackPids(stack);
  const url = (fn: FunctionName) => reviewUrl(stack, fn);
  return serverTargets(server, ca, (fn) => pids[fn], url, { authorization: `Bearer ${stack.callerToken}` });
}

/** Runs `body` with `server`, then stops the server, whether `body` threw or not. */
export async function stopAfter<S extends { stop(): Promise<void> }, T>(server: S, body: (server: S) => Promise<T>) {
  try {
    return await body(server);
  } finally {
    await server.stop();
  }
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

/** Request bodies per function and pod size: expand gets names, authorize names and contents. */
export type ReviewBodies = Record<FunctionName, Record<ContainerCount, string>>;

export function buildReviewBodies(credspecs: ReadonlyMap<string, unknown>): ReviewBodies {
  const contents = inlinedContents(credspecs);
  const forSize = (withContents: boolean) =>
    Object.fromEntries(
      CONTAINER_COUNTS.map((n) => [n, reviewBody(buildBenchPod(n, withContents ? contents : undefined))]),
    ) as Record<ContainerCount, string>;
  return { expand: forSize(false), authorize: forSize(true) };
}

/** The URL of a function's review endpoint, with the timeout the API server would append. */
export function reviewUrl(stack: Pick<FunctionsStack, "expandBaseUrl" | "authorizeBaseUrl">, fn: FunctionName): string {
  return `${fn === "expand" ? stack.expandBaseUrl : stack.authorizeBaseUrl}/${fn}?timeout=10s`;
}

/** runLoad's options for `run` of `body` to `target`; the only right answer is an allowed review (expand: with a patch). */
export function loadOf(
  target: MeasuredTarget,
  body: LoadOptions["body"],
  run: Pick<LoadOptions, "concurrency" | "maxRequests" | "maxDurationMs" | "warmupRequests">,
): LoadOptions {
  const accept: LoadOptions["accept"] = (status, text) =>
    status === 200 && text.includes('"allowed":true') && (target.fn !== "expand" || text.includes('"patch":'));
  return { ...run, url: target.url, body, headers: target.headers, caPem: target.ca, accept };
}

/** The server names in section G's tables. */
export const NODE_SERVER_NAME = "gmsa-webhooks node";
export const FLOOR_SERVER_NAME = "do-nothing Node HTTPS webhook";

/** A server process (or a pair) the bench measures, a target per function; `stop()` stops it and removes its files. */
export interface RunningTargets {
  targets: MeasuredTarget[];
  stop(): Promise<void>;
}

/** Bundles the Node entry and starts both functions. */
export async function startNodeTargets(cluster: LocalClusterInfo): Promise<RunningTargets> {
  const dir = await mkdtemp(join(tmpdir(), "gmsa-bench-node-"));
  try {
    // The production bundle, as `npm start` and the image run it.
    const entry = join(dir, (await buildNodeTarget("server", dir)).entry);
    const stack = await startFunctions(cluster, {
      runtime: "node",
      nodeEntry: entry,
      // On the command line, as `npm start` and the image run it: V8 flags are refused in NODE_OPTIONS.
      nodeArgs: NODE_SERVER_OPTIONS.split(" "),
    });
    const targets = await stackTargets(stack, NODE_SERVER_NAME, cluster.caPem);
    return {
      targets,
      stop: async () => {
        await stack.stop();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/** Starts the do-nothing webhook (one process answering both paths: allowed, expand with a fixed patch). */
export async function startFloorTargets(cluster: LocalClusterInfo, credspec: unknown): Promise<RunningTargets> {
  const minimal = await startMinimalWebhook(cluster, credspec);
  const url = (fn: FunctionName) => reviewUrl(minimal, fn);
  return { targets: serverTargets(FLOOR_SERVER_NAME, cluster.caPem, () => minimal.pid, url), stop: minimal.stop };
}
