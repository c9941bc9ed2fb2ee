/**
 * The pod sandbox image of the local node: the static pause binary (infra/local/pause, built by node-binaries.ts)
 * alone in one layer, written as an OCI archive for `ctr images import`, so containerd pulls nothing.
 */
import { chmod, copyFile, mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { writeOciArchive } from "../build/node/oci-archive.ts";
import { PAUSE_IMAGE } from "./node-config.ts";

/**
 * Writes the pause image archive into `dir` and returns its path.
 * @throws Error when GNU tar fails.
 */
export async function writePauseImage(pauseBinary: string, dir: string): Promise<string> {
  const root = join(dir, "pause-rootfs");
  await mkdir(root, { recursive: true });
  await copyFile(pauseBinary, join(root, "pause"));
  await chmod(join(root, "pause"), 0o755);
  const output = join(dir, "pause.oci.tar");
  // The same user as upstream's pause image: nobody needs to own anything in a sandbox.
  await writeOciArchive({
    layers: [root],
    config: { User: "65535:65535", Entrypoint: ["/pause"] },
    name: PAUSE_IMAGE,
    output,
  });
  await rm(root, { recursive: true, force: true });
  return output;
}
