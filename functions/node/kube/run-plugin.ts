/**
 * The Node half of the exec provider: find the plugin as client-go does, then spawn it with an argument array (no
 * shell), no stdin, the given environment, in its own process group so a timeout kills all it started.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import path from "node:path";
import type { PluginRunResult, RunPlugin } from "../../../shared/credentials/exec-credential.ts";

/** ExecCredentials are a few KiB; more is a broken plugin, not a credential. Of stderr only the tail is kept. */
const MAX_STDOUT_BYTES = 1024 * 1024;
const STDERR_TAIL_BYTES = 4096;
/** SIGTERM first so a plugin can release its own token-cache locks, then SIGKILL. */
const KILL_GRACE_MS = 500;
/** How long to wait for stdio to close after the plugin exits (a leftover child may hold it open). */
const CLOSE_GRACE_MS = 250;

/** Signals the whole process group (POSIX); on Windows, taskkill /T ends the tree. */
function killTree(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    if (process.platform === "win32") {
      spawn("taskkill", ["/pid", String(child.pid), "/T", "/F"], { stdio: "ignore", windowsHide: true }).on(
        "error",
        () => undefined,
      );
    } else {
      process.kill(-child.pid, signal);
    }
  } catch {
    // The group is already gone.
  }
}

/** Plugins still running; their groups are detached, so they would outlive us unless killed on exit. */
const running = new Set<ChildProcess>();

/** SIGKILLs every plugin process group still running: on process `exit` (no orphans) and the Node client's `close()`. */
export function killRunningPlugins(): void {
  for (const child of running) killTree(child, "SIGKILL");
}
process.once("exit", killRunningPlugins);

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
    running.add(child);
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
      else if (killedFor === "output")
        finish({ outcome: "spawn-error", message: `stdout exceeded ${MAX_STDOUT_BYTES} bytes` });
      else finish({ outcome: "exited", exitCode, stdout: Buffer.concat(stdout).toString("utf8"), stderr: stderrText });
    };
    child.on("exit", (exitCode) => timers.push(setTimeout(() => done(exitCode), CLOSE_GRACE_MS)));
    child.on("close", (exitCode) => done(exitCode));
    timers.push(setTimeout(() => kill("timeout"), timeoutMs));
    if (signal?.aborted === true) kill("timeout");
    else signal?.addEventListener("abort", onAbort, { once: true });
  });

/** Node's {@link RunPlugin}: the command found by {@link lookPath}, then spawned. */
export const runPlugin: RunPlugin = async (command, args, env, options) => {
  const found = await lookPath(command);
  return "file" in found ? spawnPlugin(found.file, args, env, options) : found;
};

async function isExecutable(file: string, windows: boolean): Promise<boolean> {
  try {
    if (!(await stat(file)).isFile()) return false;
    // Windows has no execute bit: a regular file with one of PATHEXT's extensions runs.
    if (!windows) await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Resolves `command` as Go's `exec.LookPath` does: a bare name through our own PATH, never the one the kubeconfig's
 * `exec.env` sets (Node's `spawn` would search the child's); a name with a separator as it is (kubeconfig.ts resolved
 * a relative one against the kubeconfig's folder); a bare name found through an empty or relative PATH entry is
 * refused (`exec.ErrDot` since Go 1.19).
 */
async function lookPath(command: string): Promise<{ file: string } | PluginRunResult> {
  const windows = process.platform === "win32";
  const paths = windows ? path.win32 : path.posix;
  const extensions = windows
    ? (process.env["PATHEXT"] ?? ".com;.exe;.bat;.cmd")
        .split(";")
        .filter((ext) => ext !== "")
        .map((ext) => ext.toLowerCase())
    : [];
  // Windows: the name as given when it already ends in a runnable extension, then the name with each extension.
  const names = windows
    ? [
        ...(extensions.includes(paths.extname(command).toLowerCase()) ? [command] : []),
        ...extensions.map((ext) => command + ext),
      ]
    : [command];
  const hasSeparator = windows ? /[\\/:]/.test(command) : command.includes("/");
  if (hasSeparator) {
    // As it is, so that spawn reports what is wrong with it (missing: not-found; not executable: EACCES).
    if (windows) for (const name of names) if (await isExecutable(name, windows)) return { file: name };
    return { file: command };
  }
  const searchPath = process.env["PATH"] ?? "";
  if (searchPath === "") return { outcome: "not-found" };
  for (const entry of searchPath.split(windows ? ";" : ":")) {
    // Shell semantics: an empty entry is the current directory.
    const dir = entry === "" ? "." : entry;
    for (const name of names) {
      const file = paths.join(dir, name);
      if (!(await isExecutable(file, windows))) continue;
      if (paths.isAbsolute(file)) return { file };
      return {
        outcome: "spawn-error",
        message: `found as ${file} through a relative PATH entry, which client-go refuses too`,
      };
    }
  }
  return { outcome: "not-found" };
}
