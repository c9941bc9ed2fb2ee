#!/usr/bin/env node
/**
 * The `gmsa-webhooks` command (package.json `bin`): `npx gmsa-webhooks credspec ...` or `npm run credspec -- ...`.
 * TypeScript with a node shebang: Node 24, which npx and npm scripts find first on PATH (docs/development.md,
 * Toolchain), strips the types; an older `node` fails with ERR_UNKNOWN_FILE_EXTENSION. Node strips types only outside
 * node_modules, so this bin serves a checkout of this repository, not an installed copy of the (private) package.
 */
import { runCredSpecCommand } from "./credspec.ts";
import { createProcessIo, EXIT_OK, EXIT_USAGE, type CliIo } from "./io.ts";
import { runTokenCommand } from "./token.ts";
import { MAIN_USAGE } from "./usage.ts";

/** Dispatches `gmsa-webhooks <command> ...` and resolves to the exit status. */
async function runCli([command, ...rest]: readonly string[], io: CliIo): Promise<number> {
  if (command === "credspec") return runCredSpecCommand(rest, io);
  if (command === "token") return runTokenCommand(rest, io);
  if (command === "--help" || command === "-h" || command === "help") {
    io.stdout(MAIN_USAGE);
    return EXIT_OK;
  }
  io.stderr(command === undefined ? MAIN_USAGE : `gmsa-webhooks: unknown command ${JSON.stringify(command)}\n${MAIN_USAGE}`);
  return EXIT_USAGE;
}

process.exitCode = await runCli(process.argv.slice(2), createProcessIo());
