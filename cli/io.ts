/** What every command shares: the process it talks to, its exit statuses, and the reading of its command line. */
import { parseArgs, type ParseArgsOptionsConfig } from "node:util";

/** What a command needs from the process; tests pass fakes. */
export interface CliIo {
  /** Results only; usage, problems and warnings go to stderr. */
  stdout(text: string): void;
  stderr(text: string): void;
  /** The bytes of `file`; `-` is stdin. */
  read(file: string): Promise<Uint8Array>;
  /** The process environment (cloud credentials, KUBECONFIG, NO_COLOR). */
  env: Readonly<Record<string, string | undefined>>;
  /** The program as invoked, for usage and errors: `kubectl gmsa` when run as kubectl-gmsa, else `gmsa-webhooks`. */
  program: string;
  /** True when standard output is a terminal (colour, with NO_COLOR unset). */
  stdoutIsTty?: boolean;
}

/** Exit statuses of every command: 0 all well, 1 something wrong (invalid input, a finding, a denial), 2 usage. */
export const EXIT_OK = 0;
export const EXIT_INVALID = 1;
export const EXIT_USAGE = 2;

/** The flags every cluster command takes, as kubectl spells them; here so that the entry reads them without the kube client. */
export const CLUSTER_OPTIONS = {
  kubeconfig: { type: "string" },
  context: { type: "string" },
  namespace: { type: "string", short: "n" },
  as: { type: "string" },
  "as-group": { type: "string", multiple: true },
  output: { type: "string", short: "o" },
} as const satisfies ParseArgsOptionsConfig;

const HELP = { help: { type: "boolean", short: "h" } } as const;

type StrictConfig<O extends ParseArgsOptionsConfig> = {
  args: string[];
  options: O & typeof HELP;
  allowPositionals: true;
  strict: true;
};

/** A command line as node:util parseArgs reads it in strict mode, `-h/--help` included. */
export type CommandLine<O extends ParseArgsOptionsConfig> = ReturnType<typeof parseArgs<StrictConfig<O>>>;

/** What a command declares: its options, its usage text, its checks beyond parseArgs', and its work. */
export interface CommandSpec<O extends ParseArgsOptionsConfig> {
  name: string;
  options: O;
  usage: string;
  /** The usage problems of a parsed command line, all of them. */
  check?: (line: CommandLine<O>) => string[];
  /** Runs on a command line without usage problems; resolves to the exit status. */
  run(line: CommandLine<O>, io: CliIo): Promise<number>;
}

/** A path secret of a path-mode URL: what follows `/expand/` or `/authorize/` up to a query, quote or space. */
const PATH_SECRET = /(\/(?:expand|authorize))\/[^\s"'?#<>]+/g;

/** The colours {@link printResult} paints with; any other escape sequence is escaped like any control character. */
const OWN_COLOUR = "\u001b\\[(?:0|1|31|32|33)m";
const CONTROL = new RegExp(`(${OWN_COLOUR})|[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f]`, "g");

/**
 * What may reach a terminal of text that holds what the cluster or a file said: path secrets masked (`/expand/***`),
 * and every control character but newline and tab written as `\xNN` (U+0000 to U+001F) or `\u00NN` (U+007F to
 * U+009F, which JSON.stringify leaves raw: the escape keeps `-o json` valid JSON), so a crafted container name or
 * message cannot move the cursor or rewrite the screen. With `colour`, the five colour codes of {@link printResult}
 * stay.
 */
export function safeText(text: string, colour: boolean): string {
  const hex = (char: string) => char.charCodeAt(0).toString(16).padStart(2, "0");
  return text
    .replace(PATH_SECRET, "$1/***")
    .replace(CONTROL, (match: string, own: string | undefined) =>
      own !== undefined && colour
        ? match
        : [...match]
            .map((char) => (char < " " ? `\\x${hex(char)}` : char >= "\u007f" ? `\\u00${hex(char)}` : char))
            .join(""),
    );
}

/** `io` writing through {@link safeText}: every command's output, whatever it interpolates. */
function safeIo(io: CliIo): CliIo {
  const colour = io.stdoutIsTty === true && io.env.NO_COLOR === undefined;
  return {
    ...io,
    stdout: (text) => io.stdout(safeText(text, colour)),
    stderr: (text) => io.stderr(safeText(text, false)),
  };
}

/** A usage text written for `gmsa-webhooks`, naming the program as invoked (examples in it keep their words). */
export function usageFor(usage: string, io: CliIo): string {
  return usage
    .replace(/^Usage: gmsa-webhooks\b/m, `Usage: ${io.program}`)
    .replaceAll("Run 'gmsa-webhooks ", `Run '${io.program} `);
}

/**
 * The runner of a command, resolving to its exit status. It reads the arguments strictly, once, and answers `--help`
 * itself (usage on stdout, exit 0) and a wrong command line (every problem and a pointer to --help on stderr, exit 2).
 * Everything the command writes goes through {@link safeText}.
 */
export function command<O extends ParseArgsOptionsConfig>(
  spec: CommandSpec<O>,
): (argv: readonly string[], io: CliIo) => Promise<number> {
  return async (argv, rawIo) => {
    const io = safeIo(rawIo);
    let errors: string[];
    try {
      const line = parseArgs<StrictConfig<O>>({
        args: [...argv],
        options: { ...spec.options, ...HELP },
        allowPositionals: true,
        strict: true,
      });
      if ((line.values as { help?: boolean }).help === true) {
        io.stdout(usageFor(spec.usage, io));
        return EXIT_OK;
      }
      errors = spec.check?.(line) ?? [];
      if (errors.length === 0) return await spec.run(line, io);
    } catch (error) {
      // parseArgs throws a TypeError with an ERR_PARSE_ARGS_* code and a message naming the offending argument.
      if (!String((error as { code?: unknown }).code).startsWith("ERR_PARSE_ARGS_")) throw error;
      errors = [(error as Error).message];
    }
    for (const error of errors) io.stderr(`${io.program} ${spec.name}: ${error}\n`);
    io.stderr(`Run '${io.program} ${spec.name} --help' for usage.\n`);
    return EXIT_USAGE;
  };
}

/** What `file` holds (stdin for `-`), or undefined once `<program> <command>: <file>: cannot be read (ENOENT)` is on stderr. */
export function readInput(io: CliIo, command: string, file: string): Promise<Uint8Array | undefined> {
  return io.read(file).catch((error: NodeJS.ErrnoException) => {
    io.stderr(
      `${io.program} ${command}: ${file === "-" ? "stdin" : file}: cannot be read (${error.code ?? "error"})\n`,
    );
    return undefined;
  });
}
