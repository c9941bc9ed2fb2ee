import { parseArgs, type ParseArgsOptionsConfig } from "node:util";

/** What `parseArgs` returns for a command's options in strict mode with positionals. */
export type StrictArgs<O extends ParseArgsOptionsConfig> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>
>;

/**
 * `node:util` parseArgs of a command's arguments (after the command word) in strict mode with positionals, or its
 * usage error as a message.
 * @throws whatever parseArgs throws that is not a usage error (our bug).
 */
export function parseStrictArgs<O extends ParseArgsOptionsConfig>(
  argv: readonly string[],
  options: O,
): { ok: true; parsed: StrictArgs<O> } | { ok: false; errors: string[] } {
  try {
    return { ok: true, parsed: parseArgs({ args: [...argv], options, allowPositionals: true, strict: true }) };
  } catch (err) {
    // parseArgs throws a TypeError with an ERR_PARSE_ARGS_* code and a message naming the offending argument.
    if (err instanceof TypeError && String((err as { code?: unknown }).code).startsWith("ERR_PARSE_ARGS_")) {
      return { ok: false, errors: [err.message] };
    }
    throw err;
  }
}
