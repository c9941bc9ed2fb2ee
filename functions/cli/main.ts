import { runCredSpecCommand } from "./credspec.ts";
import { EXIT_OK, EXIT_USAGE, type CliIo } from "./io.ts";
import { runTokenCommand } from "./token.ts";
import { MAIN_USAGE } from "./usage.ts";

/** Dispatches `gmsa-webhooks <command> ...` and resolves to the exit status. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === "credspec") return runCredSpecCommand(rest, io);
  if (command === "token") return runTokenCommand(rest, io);
  if (command === "--help" || command === "-h" || command === "help") {
    io.stdout(MAIN_USAGE);
    return EXIT_OK;
  }
  io.stderr(command === undefined ? MAIN_USAGE : `gmsa-webhooks: unknown command ${JSON.stringify(command)}\n${MAIN_USAGE}`);
  return EXIT_USAGE;
}
