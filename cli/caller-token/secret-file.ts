/**
 * Writing the caller key and token of `caller-token` (caller-token.ts): owner-only files, replaced atomically, in a folder the
 * write creates when it is missing.
 */
import { chmod, link, mkdir, rename, unlink, writeFile } from "node:fs/promises";
import path from "node:path";

/**
 * Writes `text` to `file` with mode 0600, atomically (a temporary file beside it, then a rename), so a reader such as
 * the API server never sees half a token. When the file's folder is missing it is created with mode 0700 (its
 * missing parents as `mkdir -p` makes them); a folder that exists keeps its mode and owner. With `replace: false` a
 * file already at `file` stays as it is and the write throws EEXIST.
 * @throws the file system's error (EACCES, ENOTDIR, EEXIST, ...) when the folder cannot be made or the file written.
 */
export async function writeSecretFile(file: string, text: string, { replace = true } = {}): Promise<void> {
  const folder = path.dirname(path.resolve(file));
  await mkdir(path.dirname(folder), { recursive: true });
  await mkdir(folder, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "EEXIST") throw error;
  });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, text, { mode: 0o600 });
  // writeFile's mode goes through the umask and leaves a leftover temporary file as it was; chmod makes it exact.
  await chmod(temporary, 0o600);
  if (replace) {
    await rename(temporary, file);
    return;
  }
  // link, unlike rename, refuses an existing target, so no file that appears meanwhile is replaced either.
  try {
    await link(temporary, file);
  } finally {
    await unlink(temporary);
  }
}
