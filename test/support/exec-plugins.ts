/** Paths of the scripted exec plugins (fixtures/exec-plugins/) and helpers to watch the processes they start. */
import { readFileSync } from "node:fs";
import path from "node:path";

const fixtures = path.join(import.meta.dirname, "fixtures", "exec-plugins");

/** The absolute path of a fixture plugin, run as `process.execPath <path>`. */
export function pluginPath(name: string): string {
  return path.join(fixtures, `${name}.ts`);
}

/** How many times a plugin appended to its COUNT_FILE (0 when it never ran). */
export function runCount(countFile: string): number {
  try {
    return readFileSync(countFile, "utf8").trim().split("\n").filter(Boolean).length;
  } catch {
    return 0;
  }
}

/** True while `pid` is a live process (a zombie awaiting its reaper counts as gone). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return true;
  }
}

/** Polls `check` every 25 ms until it holds or `timeoutMs` passes; returns whether it held. */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 3000): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return true;
}
