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

/**
 * What every command answers before its own work: the usage errors of a wrong command line (EXIT_USAGE, on stderr
 * with a pointer to --help), or its help (EXIT_OK, on stdout).
 */
export function answerUsage(
  command: string,
  parsed: { ok: false; errors: readonly string[] } | { ok: true; args: { help: boolean } },
  usage: string,
  io: CliIo,
): number {
  if (parsed.ok) {
    io.stdout(usage);
    return EXIT_OK;
  }
  for (const error of parsed.errors) io.stderr(`gmsa-webhooks ${command}: ${error}\n`);
  io.stderr(`Run 'gmsa-webhooks ${command} --help' for usage.\n`);
  return EXIT_USAGE;
}

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
