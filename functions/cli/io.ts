import { readFile } from "node:fs/promises";
import { parseArgs, type ParseArgsOptionsConfig } from "node:util";

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
  /** The program as invoked, for usage and errors: `kubectl gmsa` when run as kubectl-gmsa. Default `gmsa-webhooks`. */
  program?: string;
  /** True when standard output is a terminal (colour, with NO_COLOR unset). */
  stdoutIsTty?: boolean;
}

/** Exit statuses of every command: 0 all well, 1 something wrong (invalid input, a finding, a denial), 2 usage. */
export const EXIT_OK = 0;
export const EXIT_INVALID = 1;
export const EXIT_USAGE = 2;

/** A command's parsed arguments, or every usage problem found. */
export type ArgsResult<A> = { ok: true; args: A } | { ok: false; errors: string[] };

/** `node:util` parseArgs of a command's arguments in strict mode, or its usage error. @throws anything else (our bug). */
export function parseStrictArgs<O extends ParseArgsOptionsConfig>(argv: readonly string[], options: O) {
  try {
    return { ok: true as const, parsed: parseArgs({ args: [...argv], options, allowPositionals: true, strict: true }) };
  } catch (err) {
    // parseArgs throws a TypeError with an ERR_PARSE_ARGS_* code and a message naming the offending argument.
    if (err instanceof TypeError && String((err as { code?: unknown }).code).startsWith("ERR_PARSE_ARGS_")) {
      return { ok: false as const, errors: [err.message] };
    }
    throw err;
  }
}

/** The program's name as invoked. */
export const programOf = (io: CliIo): string => io.program ?? "gmsa-webhooks";

/** A usage text written for `gmsa-webhooks`, naming the program as invoked (examples in it keep their words). */
export function usageFor(usage: string, io: CliIo): string {
  return usage.replace(/^Usage: gmsa-webhooks\b/m, `Usage: ${programOf(io)}`).replaceAll("Run 'gmsa-webhooks ", `Run '${programOf(io)} `);
}

/** Answers a wrong command line (EXIT_USAGE: its errors and a pointer to --help on stderr) or --help (EXIT_OK, stdout). */
export function answerUsage(command: string, parsed: ArgsResult<{ help: boolean }>, usage: string, io: CliIo): number {
  if (parsed.ok) {
    io.stdout(usageFor(usage, io));
    return EXIT_OK;
  }
  for (const error of parsed.errors) io.stderr(`${programOf(io)} ${command}: ${error}\n`);
  io.stderr(`Run '${programOf(io)} ${command} --help' for usage.\n`);
  return EXIT_USAGE;
}

/** The real process: standard streams, the file system and the environment; `program` as invoked. */
export function createProcessIo(program?: string): CliIo {
  return {
    ...(program === undefined ? {} : { program }),
    stdoutIsTty: process.stdout.isTTY,
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
