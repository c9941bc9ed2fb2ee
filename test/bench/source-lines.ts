/** Lines of the webhook code (functions/, shared/), and apart the CLI (cli/) and the tests (test/). */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const SOURCE_FOLDERS = ["functions", "shared"] as const;

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The operator's CLI (`gmsa-webhooks`, `kubectl gmsa`), counted apart from the webhook code. */
export const CLI_FOLDER = "cli";
export const TEST_FOLDER = "test";

/** Newline-terminated lines (as `wc -l` counts them) of every `*.ts` file under the folders. */
export async function countSourceLines(root = ROOT, folders: readonly string[] = SOURCE_FOLDERS): Promise<number> {
  let lines = 0;
  for (const folder of folders) {
    for (const entry of await readdir(join(root, folder), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith(".ts")) continue;
      const text = await readFile(join(entry.parentPath, entry.name), "utf8");
      for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) lines++;
    }
  }
  return lines;
}
