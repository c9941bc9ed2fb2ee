/**
 * Reaper for one local cluster: `node reaper.ts <parentPid> <dir>`. Started detached by
 * teardown.ts; when the parent disappears without cleaning up (SIGKILL, OOM), it kills the
 * process groups listed in `<dir>/pgids` and removes `<dir>`. It exits by itself once `<dir>`
 * is gone (normal stop) and is also signalled by the normal stop.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { isAlive, signalGroup } from "./processes.ts";
import { COMMANDS_FILE, PGID_FILE, runCleanupCommandsSync } from "./teardown.ts";

function readProcessGroups(dir: string): number[] {
  try {
    return readFileSync(join(dir, PGID_FILE), "utf8").split("\n").filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

function readCleanupCommands(dir: string): string[][] {
  try {
    return readFileSync(join(dir, COMMANDS_FILE), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as string[]);
  } catch {
    return [];
  }
}

const [parentPid, dir] = [Number(process.argv[2]), process.argv[3]];
if (!Number.isInteger(parentPid) || parentPid <= 1 || !dir) {
  console.error("usage: node reaper.ts <parentPid> <dir>");
  process.exit(2);
}

while (existsSync(dir) && isAlive(parentPid)) await sleep(1000);
if (existsSync(dir)) {
  const pgids = readProcessGroups(dir);
  for (const pgid of pgids) signalGroup(pgid, "SIGTERM");
  await sleep(3000);
  for (const pgid of pgids) signalGroup(pgid, "SIGKILL");
  await sleep(200);
  runCleanupCommandsSync(readCleanupCommands(dir));
  rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
}
