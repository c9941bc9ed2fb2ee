/** The port a Node server child announces in its JSON log line `{"msg":"listening","port":N}` on stdout. */
import { spawn, type ChildProcessByStdio } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";

/** @throws Error (as a rejection) when the child exits before it listens. */
export function listeningPort(child: ChildProcessByStdio<null, Readable, null>): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    createInterface({ input: child.stdout }).on("line", (line) => {
      const entry = line.startsWith("{") ? (JSON.parse(line) as { msg?: string; port?: number }) : {};
      if (entry.msg === "listening" && entry.port !== undefined) resolve(entry.port);
    });
    child.once("exit", (code) => reject(new Error(`the server exited (${code}) before listening`)));
  });
}

/** `node <args>` in `cwd`, once it listens: its port, and `stop` (SIGTERM, then its exit and the end of its output). */
export async function startServerChild(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
  const child = spawn(process.execPath, args, { ...options, stdio: ["ignore", "pipe", "inherit"] });
  const ended = Promise.all([once(child, "exit"), once(child.stdout, "end")]);
  const stop = async () => {
    child.kill("SIGTERM");
    await ended;
  };
  return { port: await listeningPort(child), stop };
}
