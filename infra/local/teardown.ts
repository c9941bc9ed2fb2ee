/**
 * Teardown that survives failures: whatever happens to the parent (return, throw, Ctrl-C,
 * SIGTERM, even SIGKILL) no server and no temporary folder is left behind.
 *
 * Three layers, because each catches what the previous cannot:
 * - the normal path: `LocalCluster.stop()` (graceful, async);
 * - signals and the process `exit` event (which also fires on uncaught exceptions and unhandled
 *   rejections): synchronous SIGKILL of the process groups and `rmSync` of the folder;
 * - a detached reaper process (reaper.ts) that watches the parent's pid, for when the parent is
 *   killed outright and runs no code at all.
 */
import { execFileSync, spawn } from "node:child_process";
import { appendFileSync, rmSync } from "node:fs";
import { rm } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { nodeBinary } from "../build/tools/node-binary.ts";
import { signalGroup } from "./processes.ts";

/** What one cluster needs cleaned: process groups, commands (such as `ip netns del`) and a folder. */
export interface TeardownTarget {
  dir: string;
  pgids: number[];
  /** Argument arrays run after the process groups are killed, e.g. to delete a network namespace. */
  commands?: string[][];
  /** Graceful stop, used on signals before the synchronous fallback. */
  stop(): Promise<void>;
}

const targets = new Set<TeardownTarget>();
let installed = false;

/** File in `dir` listing the process groups the reaper must kill, one pid per line. */
export const PGID_FILE = "pgids";

/** File in `dir` listing the cleanup commands the reaper must run, one JSON argument array per line. */
export const COMMANDS_FILE = "cleanup-commands";

/** Runs cleanup commands in order, each at most 10 s; a failure (already cleaned) does not stop the others. */
export function runCleanupCommandsSync(commands: string[][]): void {
  for (const [command, ...args] of commands) {
    try {
      execFileSync(command!, args, { stdio: "ignore", timeout: 10_000 });
    } catch {
      // Gone already, or not ours to remove any more: nothing else to do at exit.
    }
  }
}

function removeSync(target: TeardownTarget): void {
  for (const pgid of target.pgids) signalGroup(pgid, "SIGKILL");
  runCleanupCommandsSync(target.commands ?? []);
  // Retries cover a server still writing into its data folder for a moment after SIGKILL.
  rmSync(target.dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
}

async function onSignal(signal: NodeJS.Signals, othersListening: boolean): Promise<void> {
  // Targets stay registered while stopping: if another handler (vitest) exits the process
  // first, the exit handler still kills and removes what is left.
  await Promise.allSettled([...targets].map((target) => target.stop()));
  // Keep the default meaning of the signal (exit 128+n) unless someone else (vitest, up.ts)
  // handles it and decides when to exit.
  if (!othersListening) process.kill(process.pid, signal);
}

function install(): void {
  if (installed) return;
  installed = true;
  process.on("exit", () => {
    for (const target of targets) removeSync(target);
  });
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    const handler = (): void => {
      process.off(signal, handler);
      // Counted now: other `once` listeners are still registered while the signal is dispatched.
      void onSignal(signal, process.listenerCount(signal) > 0);
    };
    process.on(signal, handler);
  }
}

/**
 * Registers a cluster for teardown on exit and on SIGINT/SIGTERM/SIGHUP, and starts its reaper.
 * `target.stop()` must call the returned function only once its processes are gone and its
 * folder removed, so that an exit in the middle of stopping still cleans up.
 * @returns a function that unregisters the target and ends its reaper.
 */
export function registerTeardown(target: TeardownTarget): () => void {
  install();
  targets.add(target);
  const reaper = spawn(
    nodeBinary(),
    [fileURLToPath(new URL("./reaper.ts", import.meta.url)), String(process.pid), target.dir],
    { detached: true, stdio: "ignore" },
  );
  // Without a reaper only a parent killed outright leaks; that is worth a warning, not a failure.
  reaper.once("error", (error) => process.stderr.write(`[cluster] reaper not started: ${error.message}\n`));
  reaper.unref();
  return () => {
    targets.delete(target);
    if (reaper.pid !== undefined) signalGroup(reaper.pid, "SIGTERM");
  };
}

/**
 * Registers `dir` for teardown ({@link registerTeardown}) and returns the target with its graceful stop:
 * `stopProcesses()`, then the folder removed, then the target unregistered. Idempotent: a signal handler
 * and the caller may both stop the same cluster or stack.
 */
export function createTeardown(
  dir: string,
  stopProcesses: () => Promise<void>,
): { target: TeardownTarget; teardown: () => Promise<void> } {
  let stopping: Promise<void> | undefined;
  const teardown = (): Promise<void> =>
    (stopping ??= (async () => {
      await stopProcesses();
      await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
      unregister();
    })());
  const target: TeardownTarget = { dir, pgids: [], commands: [], stop: teardown };
  const unregister = registerTeardown(target);
  return { target, teardown };
}

/** Records a process group so the reaper can kill it too (it reads `dir/pgids`). */
export function recordProcessGroup(target: TeardownTarget, pgid: number): void {
  target.pgids.push(pgid);
  appendFileSync(`${target.dir}/${PGID_FILE}`, `${pgid}\n`);
}

/**
 * Records a command that undoes something outside `dir` (an argument array, no shell), run at exit and by the
 * reaper (it reads `dir/cleanup-commands`) when the graceful stop did not run.
 */
export function recordCleanupCommand(target: TeardownTarget, command: string[]): void {
  (target.commands ??= []).push(command);
  appendFileSync(`${target.dir}/${COMMANDS_FILE}`, `${JSON.stringify(command)}\n`);
}
