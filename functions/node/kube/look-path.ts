/**
 * Finds an exec plugin's command as client-go does: Go's `exec.Command` resolves a bare name through the PATH of the
 * process that runs the plugin (`exec.LookPath`), never through the `PATH` the kubeconfig's `exec.env` sets for the
 * plugin. Node's `spawn` would search the child's `env.PATH`, so the lookup happens here, before the spawn.
 */
import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import path from "node:path";

/** The file to run, or why there is none. */
export type LookPathResult = { file: string } | { outcome: "not-found" } | { outcome: "relative"; file: string };

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
 * Resolves `command` as Go's `exec.LookPath` does. A name with a path separator is used as it is (kubeconfig.ts has
 * already resolved a relative one against the kubeconfig's folder). A bare name is searched in this process's `PATH`; an empty
 * or relative entry that holds it is refused (`exec.ErrDot` since Go 1.19), not run from the current directory.
 */
export async function lookPath(command: string): Promise<LookPathResult> {
  const windows = process.platform === "win32";
  const paths = windows ? path.win32 : path.posix;
  const extensions = windows
    ? (process.env["PATHEXT"] ?? ".com;.exe;.bat;.cmd").split(";").filter((ext) => ext !== "").map((ext) => ext.toLowerCase())
    : [];
  // Windows: the name as given when it already ends in a runnable extension, then the name with each extension.
  const names = windows
    ? [...(extensions.includes(paths.extname(command).toLowerCase()) ? [command] : []), ...extensions.map((ext) => command + ext)]
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
      return paths.isAbsolute(file) ? { file } : { outcome: "relative", file };
    }
  }
  return { outcome: "not-found" };
}
