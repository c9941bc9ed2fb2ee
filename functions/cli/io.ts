import { readFile } from "node:fs/promises";

/** What a command needs from the process; tests pass fakes. */
export interface CliIo {
  /** Writes to standard output (results only). */
  stdout(text: string): void;
  /** Writes to standard error (usage, problems, warnings). */
  stderr(text: string): void;
  readFile(path: string): Promise<Uint8Array>;
  readStdin(): Promise<Uint8Array>;
  /** The process environment (the `token` command reads cloud credentials from it). */
  env: Readonly<Record<string, string | undefined>>;
}

/** Exit statuses of every command: 0 done, 1 the input is invalid, 2 the command line is wrong or unreadable. */
export const EXIT_OK = 0;
export const EXIT_INVALID = 1;
export const EXIT_USAGE = 2;

/** The real process: standard streams, the file system and the environment. */
export function createProcessIo(): CliIo {
  return {
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    readFile: async (path) => new Uint8Array(await readFile(path)),
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return new Uint8Array(Buffer.concat(chunks));
    },
    env: process.env,
  };
}
