/**
 * Writes every generated deployment file from the typed source in this folder (files.ts lists them):
 *
 * ```sh
 * npm run manifests
 * ```
 *
 * test/unit/infra/manifests.test.ts fails while a committed file differs from what this writes.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { REPO_ROOT } from "../repo-root.ts";
import { renderGeneratedFiles } from "./files.ts";

if (import.meta.main) {
  const files = renderGeneratedFiles();
  for (const [path, text] of files) {
    await mkdir(dirname(join(REPO_ROOT, path)), { recursive: true });
    await writeFile(join(REPO_ROOT, path), text);
  }
  console.log(`wrote ${files.size} files: ${[...files.keys()].join(", ")}`);
}
