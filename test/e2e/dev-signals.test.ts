/**
 * `npm run dev` stops on a signal to the npm process, as an operator's Ctrl-C in another terminal or a supervisor's
 * SIGTERM sends it: npm passes SIGINT and SIGTERM to its script's process (the script `exec`s node, since a `sh -c`
 * between them swallows SIGINT and dies of SIGTERM), and dev.ts stops too when npm is killed outright
 * (infra/local/parent-watch.ts). Each case: the dev process is gone, its folder removed.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../infra/build/repo-root.ts";

interface StartedDev {
  npm: ChildProcess;
  devPid: number;
  dir: string;
  output: () => string;
}

async function startDev(): Promise<StartedDev> {
  // detached: a group of its own, so the signal reaches npm alone, not a terminal's whole group.
  const npm = spawn("npm", ["run", "--silent", "dev"], {
    cwd: REPO_ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let text = "";
  npm.stdout.on("data", (chunk: Buffer) => (text += chunk.toString()));
  npm.stderr.on("data", (chunk: Buffer) => (text += chunk.toString()));
  const deadline = Date.now() + 90_000;
  let dir: string | undefined;
  while (dir === undefined && Date.now() < deadline && npm.exitCode === null) {
    await sleep(250);
    dir = /deletes (\S+)\.$/m.exec(text)?.[1];
  }
  if (dir === undefined) throw new Error(`npm run dev did not become ready:\n${text}`);
  const children = readFileSync(`/proc/${npm.pid}/task/${npm.pid}/children`, "utf8").trim().split(/\s+/).map(Number);
  const devPid = children.find((pid) => readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("infra/local/dev.ts"));
  if (devPid === undefined) throw new Error(`no dev.ts under npm (children ${children.join(", ")})`);
  return { npm, devPid, dir, output: () => text };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function expectStopped(dev: StartedDev): Promise<void> {
  const deadline = Date.now() + 30_000;
  while ((alive(dev.devPid) || existsSync(dev.dir)) && Date.now() < deadline) await sleep(250);
  expect(alive(dev.devPid), dev.output()).toBe(false);
  expect(existsSync(dev.dir)).toBe(false);
}

describe("npm run dev stops on a signal to npm's pid", () => {
  for (const signal of ["SIGINT", "SIGTERM", "SIGKILL"] as const) {
    it(`${signal} to npm: dev.ts stops the cluster and removes its folder`, async () => {
      const dev = await startDev();
      try {
        process.kill(dev.npm.pid!, signal);
        await expectStopped(dev);
      } finally {
        if (alive(dev.devPid)) process.kill(dev.devPid, "SIGKILL");
      }
    }, 150_000);
  }
});
