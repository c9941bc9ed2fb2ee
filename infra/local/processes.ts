/**
 * Child servers (etcd, kube-apiserver) in their own process groups, logging to files.
 */
import { spawn } from "node:child_process";
import { openSync, closeSync } from "node:fs";
import { createServer } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

/** A running server started by {@link startProcess}. */
export interface ManagedProcess {
  name: string;
  /** Also the process group id: the child leads its own group. */
  pid: number;
  logFile: string;
  /** Resolves with the exit code (or the signal name) once the process is gone. */
  exited: Promise<number | string>;
  /** Whether {@link ManagedProcess.exited} has resolved. */
  hasExited(): boolean;
}

/** Options for {@link startProcess}. */
export interface StartProcessOptions {
  /** The whole environment of the child; default: this process's. */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

/**
 * Starts `command` with an argument array (no shell) as the leader of a new process group, so
 * {@link stopProcess} also reaches anything it forks, with stdout and stderr appended to `logFile`.
 * @throws Error when the process cannot be spawned (missing binary).
 */
export async function startProcess(
  name: string,
  command: string,
  args: string[],
  logFile: string,
  options: StartProcessOptions = {},
): Promise<ManagedProcess> {
  const fd = openSync(logFile, "a");
  try {
    const child = spawn(command, args, {
      detached: true,
      stdio: ["ignore", fd, fd],
      env: options.env,
      cwd: options.cwd,
    });
    let done = false;
    const exited = new Promise<number | string>((resolve) => {
      child.once("exit", (code, signal) => {
        done = true;
        resolve(code ?? signal ?? "unknown");
      });
    });
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", resolve);
      child.once("error", (error) => reject(new Error(`cannot start ${name} (${command})`, { cause: error })));
    });
    // The parent must not wait for servers it forgot to stop; teardown.ts kills them on exit.
    child.unref();
    return { name, pid: child.pid!, logFile, exited, hasExited: () => done };
  } finally {
    closeSync(fd);
  }
}

/**
 * Sends SIGTERM to the process group, then SIGKILL if it is still there after `graceMs`
 * (default 5000). Resolves once the leader has exited.
 */
export async function stopProcess(process: ManagedProcess, graceMs = 5000): Promise<void> {
  if (process.hasExited()) return;
  signalGroup(process.pid, "SIGTERM");
  const exitedInTime = await Promise.race([process.exited.then(() => true), sleep(graceMs).then(() => false)]);
  if (!exitedInTime) {
    signalGroup(process.pid, "SIGKILL");
    await process.exited;
  }
}

/** Whether a process exists (EPERM: it does, but belongs to someone else). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Signals a whole process group, ignoring groups that are already gone (ESRCH). */
export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    globalThis.process.kill(-pgid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
  }
}

/**
 * Ports this process has handed out: one is not handed out twice, even if its caller has not bound it yet.
 */
const handedOut = new Set<number>();

/**
 * Where ports are picked: below the kernel's ephemeral range (32768-60999 by default), which outgoing connections
 * take their source ports from. A port picked inside it (as `listen(0)` does) can be taken by some test's outgoing
 * connection before its server binds it: a slow-loris attacker's thousands of loopback connections once took the
 * port a kube-apiserver was about to listen on.
 */
const PORTS = { low: 20_000, high: 32_767 };

/** Whether `port` on 127.0.0.1 can be bound right now. */
function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** A TCP port free on 127.0.0.1 right now and not handed out before (the caller binds it soon after). */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = PORTS.low + Math.floor(Math.random() * (PORTS.high - PORTS.low + 1));
    if (handedOut.has(port) || !(await canBind(port))) continue;
    handedOut.add(port);
    return port;
  }
}

/**
 * Polls `check` every 250 ms until it resolves true (a rejection counts as false).
 * @throws Error when one of `processes` exits first, or after `timeoutMs`.
 */
export async function waitFor(
  what: string,
  timeoutMs: number,
  processes: ManagedProcess[],
  check: () => Promise<boolean>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const dead = processes.find((p) => p.hasExited());
    if (dead) throw new Error(`${dead.name} exited (${String(await dead.exited)}) while waiting for ${what}`);
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(250);
  }
}
