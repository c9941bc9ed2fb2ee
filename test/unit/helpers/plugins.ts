/** Paths of the scripted exec plugins and small process helpers for the tests. */
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll } from "vitest";

const fixtures = path.join(import.meta.dirname, "..", "fixtures", "exec-plugins");

/** The absolute path of a fixture plugin, run as `process.execPath <path>`. */
export function pluginPath(name: string): string {
  return path.join(fixtures, `${name}.ts`);
}

const created: string[] = [];
// Registered while the importing test file is collected (vitest isolates modules per file), so it runs once per file.
afterAll(async () => {
  await Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A fresh temporary folder, removed after the test file. */
export async function tempDir(prefix = "gmsa-test-"): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  created.push(dir);
  return dir;
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

/** Polls until `check` holds or `timeoutMs` passes; returns the last result. */
export async function eventually(check: () => boolean, timeoutMs = 3000): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return true;
}
