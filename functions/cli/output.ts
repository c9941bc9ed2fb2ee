/** How the cluster commands print: human text with colour only on a terminal, or `-o json|yaml` for scripts. */
import { stringify } from "yaml";
import type { OutputFormat } from "./cluster.ts";
import type { CliIo } from "./io.ts";

/** Paints text for a terminal; every function is the identity when colour is off. */
export interface Paint {
  ok(text: string): string;
  bad(text: string): string;
  warn(text: string): string;
  bold(text: string): string;
}

const ansi = (code: number) => (text: string) => `\u001b[${code}m${text}\u001b[0m`;
const plain = (text: string): string => text;

/** Colour only when stdout is a terminal and NO_COLOR is unset (no-color.org): pipes and files get plain text. */
export function paintFor(io: CliIo): Paint {
  if (io.stdoutIsTty !== true || io.env.NO_COLOR !== undefined) return { ok: plain, bad: plain, warn: plain, bold: plain };
  return { ok: ansi(32), bad: ansi(31), warn: ansi(33), bold: ansi(1) };
}

/** Prints `data` as JSON or YAML, or `text(paint)` for people. */
export function printResult(io: CliIo, format: OutputFormat, data: unknown, text: (paint: Paint) => string): void {
  if (format === "json") io.stdout(`${JSON.stringify(data, null, 2)}\n`);
  else if (format === "yaml") io.stdout(stringify(data));
  else io.stdout(text(paintFor(io)));
}
