/**
 * The tail of a log file, for error messages: a failed `go build` (go-build.ts), a server of the dev cluster that
 * would not start (infra/local).
 */
import { readFile } from "node:fs/promises";

/** The last `lines` lines of a log file, or a note when it cannot be read. */
export async function tailFile(file: string, lines = 40): Promise<string> {
  try {
    const text = await readFile(file, "utf8");
    return text.trimEnd().split("\n").slice(-lines).join("\n");
  } catch (error) {
    return `(cannot read ${file}: ${(error as Error).message})`;
  }
}
