/** Lines of the webhook code (functions/, shared/), and apart the CLI (cli/) and the tests (test/). */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Newline-terminated lines (as `wc -l` counts them) of every `*.ts` file under the repository's `folders`. */
export async function countSourceLines(...folders: string[]): Promise<number> {
  let lines = 0;
  for (const folder of folders) {
    for (const entry of await readdir(join(ROOT, folder), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith(".ts")) continue;
      const text = await readFile(join(entry.parentPath, entry.name), "utf8");
      for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) lines++;
    }
  }
  return lines;
}
