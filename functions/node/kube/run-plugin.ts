/**
 * The Node half of the exec provider: spawn the plugin asynchronously with an argument array (no shell), no
 * stdin, the given environment, in its own process group so a timeout kills it and everything it started.
 */
import { spawn, type ChildProcess } from "node:child_process";
import type { PluginRunResult, RunPlugin } from "../../../shared/credentials/exec-credential.ts";
import { lookPath } from "./look-path.ts";

/** ExecCredentials are a few KiB; more than this is a broken plugin, not a credential. */
const MAX_STDOUT_BYTES = 1024 * 1024;
const STDERR_TAIL_BYTES = 4096;
/** SIGTERM first so a plugin can release its own token-cache locks, then SIGKILL. */
const KILL_GRACE_MS = 500;
/** After the plugin exits, how long to wait for its stdio to close (a leftover child may hold it open). */
const CLOSE_GRACE_MS = 250;

/** Signals the whole process group (POSIX); on Windows, taskkill /T ends the tree. */
function killTree(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    if (process.platform === "win32") {
      spawn("taskkill", ["/pid", String(child.pid), "/T", "/F"], { stdio: "ignore", windowsHide: true }).on("error", () => undefined);
    } else {
      process.kill(-child.pid, signal);
    }
  } catch {
    // The group is already gone.
  }
}

/** Plugins still running; their groups are detached, so they would outlive us unless killed on exit. */
const running = new Set<ChildProcess>();
let exitHookInstalled = false;

function track(child: ChildProcess): void {
  running.add(child);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once("exit", killRunningPlugins);
  }
}

/**
 * SIGKILLs every plugin process group still running. Runs by itself on process `exit` (so a graceful shutdown
 * leaves no orphans); the Node client's `close()` calls it too.
 */
export function killRunningPlugins(): void {
  for (const child of running) killTree(child, "SIGKILL");
}

/** Spawns `file`, already found. */
const spawnPlugin: RunPlugin = (file, args, env, { timeoutMs, signal }) =>
  new Promise<PluginRunResult>((resolve) => {
    let child: ChildProcess;
    try {
      child = spawn(file, [...args], {
        env,
        stdio: ["ignore", "pipe", "pipe"],
        // Its own process group, so killTree reaches grandchildren (POSIX setsid semantics).
        detached: process.platform !== "win32",
        windowsHide: true,
        shell: false,
      });
    } catch (error) {
      resolve({ outcome: "spawn-error", message: (error as NodeJS.ErrnoException).code ?? (error as Error).name });
      return;
    }
    track(child);
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = Buffer.alloc(0);
    let settled = false;
    let killedFor: "timeout" | "output" | undefined;
    const timers: NodeJS.Timeout[] = [];

    const finish = (result: PluginRunResult): void => {
      if (settled) return;
      settled = true;
      running.delete(child);
      for (const timer of timers) clearTimeout(timer);
      // Whatever of the group outlived the grace period goes now.
      if (killedFor !== undefined) killTree(child, "SIGKILL");
      signal?.removeEventListener("abort", onAbort);
      child.stdout?.destroy();
      child.stderr?.destroy();
      resolve(result);
    };
    const kill = (reason: "timeout" | "output"): void => {
      if (killedFor !== undefined) return;
      killedFor = reason;
      killTree(child, "SIGTERM");
      timers.push(setTimeout(() => killTree(child, "SIGKILL"), KILL_GRACE_MS));
    };
    const onAbort = (): void => kill("timeout");

    child.stdout?.on("data", (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      if (stdoutBytes > MAX_STDOUT_BYTES) kill("output");
      else stdout.push(chunk);
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr = Buffer.concat([stderr, chunk]);
      if (stderr.length > STDERR_TAIL_BYTES) stderr = stderr.subarray(stderr.length - STDERR_TAIL_BYTES);
    });
    child.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") finish({ outcome: "not-found" });
      else finish({ outcome: "spawn-error", message: error.code ?? error.name });
    });
    const done = (exitCode: number | null): void => {
      const stderrText = stderr.toString("utf8");
      if (killedFor === "timeout") finish({ outcome: "timeout", stderr: stderrText });
      else if (killedFor === "output") finish({ outcome: "spawn-error", message: `stdout exceeded ${MAX_STDOUT_BYTES} bytes` });
      else finish({ outcome: "exited", exitCode, stdout: Buffer.concat(stdout).toString("utf8"), stderr: stderrText });
    };
    child.on("exit", (exitCode) => {
      timers.push(setTimeout(() => done(exitCode), CLOSE_GRACE_MS));
    });
    child.on("close", (exitCode) => done(exitCode));
    timers.push(setTimeout(() => kill("timeout"), timeoutMs));
    if (signal?.aborted === true) kill("timeout");
    else signal?.addEventListener("abort", onAbort, { once: true });
  });

/**
 * Node's {@link RunPlugin}. The command is found through this process's PATH, as client-go finds it, not through the
 * `PATH` in `env` (look-path.ts).
 */
export const runPlugin: RunPlugin = async (command, args, env, options) => {
  const found = await lookPath(command);
  if ("outcome" in found) {
    return found.outcome === "not-found"
      ? found
      : { outcome: "spawn-error", message: `found as ${found.file} through a relative PATH entry, which client-go refuses too` };
  }
  return spawnPlugin(found.file, args, env, options);
};
