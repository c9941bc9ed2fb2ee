/**
 * The production image (infra/build/node/image.ts), built or taken from its cache, unpacked and checked: its
 * configuration, its layers, and Node started in it.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { NODE_SERVER_OPTIONS } from "../../../infra/build/node/heap-limits.ts";
import type { ImageInfo } from "../../../infra/build/node/image.ts";
import { preparedImage } from "../../support/prepared.ts";
import { tempDir } from "../../support/temp-dir.ts";
import { run } from "../support/run.ts";

/** An OCI descriptor, as far as these tests read it. */
type Descriptor = { digest: string };

let image: ImageInfo;
let work: string;
let layout: string;
let layers: string[];
let config: { config: { User: string; Cmd: string[]; WorkingDir: string }; rootfs: { diff_ids: string[] } };

const blob = (digest: string): string => path.join(layout, "blobs", "sha256", digest.replace("sha256:", ""));

beforeAll(async () => {
  image = preparedImage();
  work = await tempDir("image-test-");
  layout = path.join(work, "layout");
  await run("mkdir", [layout]);
  await run("tar", ["-xf", image.archive, "-C", layout]);
  const index = JSON.parse(await readFile(path.join(layout, "index.json"), "utf8")) as { manifests: Descriptor[] };
  const manifest = JSON.parse(await readFile(blob(index.manifests[0]!.digest), "utf8")) as {
    config: Descriptor;
    layers: Descriptor[];
  };
  config = JSON.parse(await readFile(blob(manifest.config.digest), "utf8")) as typeof config;
  layers = manifest.layers.map((layer) => blob(layer.digest));
});

describe("the production image", () => {
  it("runs the bundle with the heap limits as uid 1000 in /app", () => {
    expect(config.config.User).toBe("1000:1000");
    expect(config.config.WorkingDir).toBe("/app");
    expect(config.config.Cmd).toEqual(["node", ...NODE_SERVER_OPTIONS.split(" "), "dist/node/server.mjs"]);
  });

  it("is smaller than node:24-slim's 220 MB unpacked and names its digest", () => {
    expect(image.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(image.unpackedBytes).toBeLessThan(150 * 2 ** 20);
    expect(image.compressedBytes).toBeLessThan(60 * 2 ** 20);
  });

  it("holds root-owned files dated 1970 and no shell", async () => {
    for (const layer of layers) {
      const { stdout } = await run("tar", ["-tvzf", layer], { maxBuffer: 16 * 2 ** 20 });
      const entries = stdout.trim().split("\n");
      for (const entry of entries) expect(entry).toMatch(/^\S+ 0\/0 +\d+ 1970-01-01 00:00 /);
      const names = entries.map((entry) => entry.replace(/^.* 00:00 /, "").replace(/ -> .*$/, ""));
      expect(names).toEqual([...names].sort());
      expect(names.filter((name) => /(^|\/)(ba|da)?sh$/.test(name))).toEqual([]);
    }
  });

  it("lists each layer's uncompressed digest in its config", async () => {
    const digests = await Promise.all(
      layers.map(async (layer) => (await run("sh", ["-c", `gzip -dc '${layer}' | sha256sum`])).stdout.split(" ")[0]),
    );
    expect(config.rootfs.diff_ids).toEqual(digests.map((digest) => `sha256:${digest}`));
  });

  it.runIf(process.getuid?.() === 0)(
    "starts Node as uid 1000 on its read-only root",
    async () => {
      const script = "process.stdout.write(JSON.stringify({ uid: process.getuid(), version: process.version }))";
      const started = JSON.parse(await runInImage(["-e", script])) as { uid: number; version: string };
      expect(started.uid).toBe(1000);
      expect(started.version).toMatch(/^v24\./);
    },
    60_000,
  );

  it.runIf(process.getuid?.() === 0)(
    "runs the CLI's exec plugin help with the image's Node",
    async () => {
      const help = await runInImage(["/app/dist/node/gmsa-webhooks.mjs", "token", "--help"]);
      expect(help).toMatch(/^Usage: gmsa-webhooks token <eks \| aks \| gke>/);
    },
    60_000,
  );
});

let rootfs: string | undefined;

/** Runs the image's Node with `args` as uid 1000 in a private mount namespace whose root is the image, read-only. */
async function runInImage(args: string[]): Promise<string> {
  if (rootfs === undefined) {
    const folder = path.join(work, "rootfs");
    await run("mkdir", [folder]);
    for (const layer of layers) await run("tar", ["-xzf", layer, "-C", folder]);
    rootfs = folder;
  }
  const quoted = args.map((arg) => `'${arg}'`).join(" ");
  const { stdout } = await run("unshare", [
    "--mount",
    "--fork",
    "sh",
    "-c",
    `mount --bind '${rootfs}' '${rootfs}' && mount -o remount,bind,ro '${rootfs}' && exec chroot --userspec=1000:1000 '${rootfs}' /usr/local/bin/node ${quoted}`,
  ]);
  return stdout;
}
