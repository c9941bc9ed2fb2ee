#!/usr/bin/env node
/**
 * The `gmsa-webhooks` command, and `kubectl gmsa` (package.json `bin`: kubectl-gmsa is the same file; kubectl runs
 * any `kubectl-gmsa` on PATH as `kubectl gmsa`). TypeScript with a node shebang: Node 24, which npx and npm scripts
 * find first on PATH (docs/development.md, Toolchain), strips the types; an older `node` fails with
 * ERR_UNKNOWN_FILE_EXTENSION. Node strips types only outside node_modules, so this bin serves a checkout of this
 * repository, not an installed copy of the (private) package.
 */
import path from "node:path";
import { parseArgs } from "node:util";
import { CLUSTER_OPTIONS } from "./cluster-flags.ts";
import { runCredSpecCommand } from "./credspec.ts";
import { createProcessIo, EXIT_OK, EXIT_USAGE, programOf, usageFor, type CliIo } from "./io.ts";
import { runTokenCommand } from "./token.ts";
import { MAIN_USAGE } from "./usage.ts";

/**
 * Every command by name: each parses its own arguments and resolves to its exit status. The cluster commands load
 * the kube client when run, so that `token`, which kubectl runs at every credential refresh, starts quickly.
 */
const COMMANDS: Record<string, (argv: readonly string[], io: CliIo) => Promise<number>> = {
  credspec: runCredSpecCommand,
  doctor: async (argv, io) => (await import("./doctor/command.ts")).runDoctorCommand(argv, io),
  token: runTokenCommand,
  "who-can-use": async (argv, io) => (await import("./who-can-use.ts")).runWhoCanUseCommand(argv, io),
  explain: async (argv, io) => (await import("./explain.ts")).runExplainCommand(argv, io),
};

/** The command and its arguments; cluster flags may come first (`kubectl gmsa --context c explain ...`). */
function splitCommand(argv: readonly string[]): { command?: string | undefined; rest: string[] } {
  const { tokens } = parseArgs({ args: [...argv], options: CLUSTER_OPTIONS, strict: false, allowPositionals: true, tokens: true });
  const first = tokens.find((token) => token.kind === "positional" || token.kind === "option-terminator");
  if (first?.kind !== "positional") return { command: argv[0], rest: argv.slice(1) };
  return { command: first.value, rest: argv.filter((_, index) => index !== first.index) };
}

/** Dispatches `gmsa-webhooks <command> ...` and resolves to the exit status. */
async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const { command, rest } = splitCommand(argv);
  const run = command !== undefined && Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (run !== undefined) return run(rest, io);
  if (command === "--help" || command === "-h" || command === "help") {
    io.stdout(usageFor(MAIN_USAGE, io));
    return EXIT_OK;
  }
  const problem = command === undefined ? "" : `${programOf(io)}: unknown command ${JSON.stringify(command)}\n`;
  io.stderr(`${problem}${usageFor(MAIN_USAGE, io)}`);
  return EXIT_USAGE;
}

/** `kubectl gmsa` when run as kubectl's plugin (kubectl-gmsa, or the krew archive's kubectl-gmsa), else `gmsa-webhooks`. */
function programName(invokedAs: string | undefined): string {
  return path.basename(invokedAs ?? "").startsWith("kubectl-gmsa") ? "kubectl gmsa" : "gmsa-webhooks";
}

process.exitCode = await runCli(process.argv.slice(2), createProcessIo(programName(process.argv[1])));
