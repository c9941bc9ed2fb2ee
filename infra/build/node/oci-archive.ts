/**
 * Writes an OCI image archive (an OCI image layout in one tar: `oci-layout`, `index.json`, `blobs/sha256/...`) from
 * folders, without a container engine or a registry: each folder becomes one gzip layer. Every tar is reproducible:
 * entries sorted by name, mtime 0, owner root (uid and gid 0, no names), no atime/ctime headers, and gzip with no
 * name and mtime 0, so the same files give the same digests on every run and machine.
 * Spec: https://github.com/opencontainers/image-spec (image-layout.md, manifest.md, config.md).
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { gzip } from "node:zlib";

const run = promisify(execFile);
const gzipAsync = promisify(gzip);

/** The `config` part of an OCI image configuration (the fields a runtime reads). */
export interface OciRuntimeConfig {
  User?: string;
  Env?: string[];
  Entrypoint?: string[];
  Cmd?: string[];
  WorkingDir?: string;
  ExposedPorts?: Record<string, Record<string, never>>;
  Labels?: Record<string, string>;
}

/** What {@link writeOciArchive} builds. */
export interface OciArchiveOptions {
  /** Folders, lowest layer first; each one's contents become a layer rooted at `/`. */
  layers: string[];
  config: OciRuntimeConfig;
  /**
   * The image's full name, e.g. `docker.io/library/gmsa-webhooks:0.1.0`: the index names it as `docker save` does,
   * in `io.containerd.image.name` (read by `ctr images import` and `docker load`) with its tag in
   * `org.opencontainers.image.ref.name` (read by skopeo's `oci-archive:`).
   */
  name: string;
  /** The archive file to write (replaced when it exists). */
  output: string;
}

/** What was written, with sizes in bytes. */
export interface OciArchiveResult {
  /** The manifest's digest, `sha256:...`: what a registry reports after a push and what a pod can pin. */
  digest: string;
  /** Compressed size: the manifest, the config and every gzip layer, as a registry stores them. */
  compressedBytes: number;
  /** Size of the layers unpacked. */
  unpackedBytes: number;
}

/**
 * GNU tar with the flags of https://reproducible-builds.org/docs/archives/: sorted names, a fixed mtime, numeric
 * root ownership and no per-run pax headers.
 */
const REPRODUCIBLE_TAR = [
  "--sort=name",
  "--owner=0",
  "--group=0",
  "--numeric-owner",
  "--format=pax",
  "--pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime",
];

/** Tars `entries` of `folder` into `output` reproducibly, every entry dated `mtime` (seconds since the epoch). */
export async function tarFolder(folder: string, output: string, entries = ["."], mtime = 0): Promise<void> {
  await run("tar", [...REPRODUCIBLE_TAR, `--mtime=@${mtime}`, "-cf", output, "-C", folder, ...entries]);
}

function sha256(data: Buffer): string {
  return `sha256:${createHash("sha256").update(data).digest("hex")}`;
}

interface Blob {
  mediaType: string;
  digest: string;
  size: number;
}

/**
 * Builds the archive at `options.output` and returns its digest and sizes.
 * @throws Error when GNU tar is missing or a folder cannot be read.
 */
export async function writeOciArchive(options: OciArchiveOptions): Promise<OciArchiveResult> {
  const work = await mkdtemp(path.join(tmpdir(), "oci-archive-"));
  try {
    const blobsDir = path.join(work, "layout", "blobs", "sha256");
    await mkdir(blobsDir, { recursive: true });
    const writeBlob = async (data: Buffer, mediaType: string): Promise<Blob> => {
      const digest = sha256(data);
      await writeFile(path.join(blobsDir, digest.slice("sha256:".length)), data);
      return { mediaType, digest, size: data.length };
    };

    const layers: Blob[] = [];
    const diffIds: string[] = [];
    let unpackedBytes = 0;
    for (const [index, folder] of options.layers.entries()) {
      const tarFile = path.join(work, `layer-${index}.tar`);
      await tarFolder(folder, tarFile);
      const tar = await readFile(tarFile);
      unpackedBytes += tar.length;
      diffIds.push(sha256(tar));
      layers.push(await writeBlob(await gzipAsync(tar), "application/vnd.oci.image.layer.v1.tar+gzip"));
    }

    // No `created` date and no history timestamps: they would change the digest on every build.
    const imageConfig = {
      architecture: "amd64",
      os: "linux",
      config: options.config,
      rootfs: { type: "layers", diff_ids: diffIds },
    };
    const config = await writeBlob(
      Buffer.from(JSON.stringify(imageConfig)),
      "application/vnd.oci.image.config.v1+json",
    );
    const manifestJson = { schemaVersion: 2, mediaType: "application/vnd.oci.image.manifest.v1+json", config, layers };
    const manifest = await writeBlob(
      Buffer.from(JSON.stringify(manifestJson)),
      "application/vnd.oci.image.manifest.v1+json",
    );
    const index = {
      schemaVersion: 2,
      mediaType: "application/vnd.oci.image.index.v1+json",
      manifests: [
        {
          ...manifest,
          annotations: {
            "io.containerd.image.name": options.name,
            "org.opencontainers.image.ref.name": options.name.replace(/^.*:/, ""),
          },
        },
      ],
    };
    await writeFile(path.join(work, "layout", "index.json"), JSON.stringify(index));
    await writeFile(path.join(work, "layout", "oci-layout"), JSON.stringify({ imageLayoutVersion: "1.0.0" }));

    await mkdir(path.dirname(options.output), { recursive: true });
    const partial = `${options.output}.partial-${process.pid}`;
    await tarFolder(path.join(work, "layout"), partial, ["oci-layout", "index.json", "blobs"]);
    await rename(partial, options.output);
    const compressedBytes = [config, manifest, ...layers].reduce((sum, blob) => sum + blob.size, 0);
    return { digest: manifest.digest, compressedBytes, unpackedBytes };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** Whether `file` exists. */
export async function fileExists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}
