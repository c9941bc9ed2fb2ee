import type { CredSpecProblem } from "./problems.ts";

/** A parsed JSON value, or the problems that kept the input from being one. */
export type CredSpecParseResult = { ok: true; value: unknown } | { ok: false; problems: CredSpecProblem[] };

/**
 * Decodes and parses a credential spec file: UTF-8 (with or without a byte order mark), or UTF-16 with one, which
 * Windows PowerShell 5.1 writes with `>` and `Out-File`. Problems never quote the input: V8's JSON syntax errors
 * include a slice of the text, which could be a `PluginInput` credential, so only the line and column are kept.
 */
export function parseCredSpecJson(bytes: Uint8Array): CredSpecParseResult {
  const text = decodeText(bytes);
  if (text === undefined) return fail("is not UTF-8 or UTF-16 text");
  if (text.trim() === "") return fail("is empty; expected the JSON that New-CredentialSpec writes");
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (err) {
    const where = err instanceof SyntaxError ? /\(line \d+ column \d+\)/.exec(err.message)?.[0] : undefined;
    // UTF-16 without a byte order mark decodes as UTF-8 with a NUL after every ASCII character.
    const hint = text.includes("\0") ? "; it looks like UTF-16 without a byte order mark, save it as UTF-8" : "";
    return fail(`is not valid JSON${where === undefined ? "" : ` ${where}`}${hint}`);
  }
}

function decodeText(bytes: Uint8Array): string | undefined {
  const encoding =
    bytes[0] === 0xff && bytes[1] === 0xfe ? "utf-16le" : bytes[0] === 0xfe && bytes[1] === 0xff ? "utf-16be" : "utf-8";
  try {
    // fatal: reject malformed input instead of inserting U+FFFD; the decoder drops a leading byte order mark.
    return new TextDecoder(encoding, { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

function fail(message: string): CredSpecParseResult {
  return { ok: false, problems: [{ path: "", message: `input ${message}` }] };
}
