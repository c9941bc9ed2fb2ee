/**
 * Builds programs from pinned Go modules into `.cache/bin/`, once: a stamp file holds a hash of the inputs, so a
 * binary is rebuilt only when its go.mod, go.sum or main.go (or the Go toolchain, or the build flags) changes. The
 * dev cluster (infra/local/build.ts, node-binaries.ts), the release tooling (infra/build/release/actionlint.ts) and Helm
 * ({@link ensureHelm}, built from infra/build/helm) all build through it.
 */
import { execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { setPriority } from "node:os";
import { basename, dirname, join } from "node:path";
import { promisify } from "node:util";
import { REPO_ROOT } from "../repo-root.ts";
import { tailFile } from "./tail-file.ts";

const run = promisify(execFile);

/** Where the built binaries live (shared by every checkout that links it). */
export const BIN_DIR = join(REPO_ROOT, ".cache", "bin");

/** One binary to build from a pinned Go module. */
export interface Target {
  /** The binary's path in `.cache/bin`: a file name, or `folder/name` for tools kept together (containerd, CNI). */
  name: string;
  /** Module folder holding go.mod, go.sum and (unless `pkg` names a tool of the module) main.go. */
  moduleDir: string;
  /** Module file and its checksums when not go.mod and go.sum (built with `-modfile`). */
  modFile?: { mod: string; sum: string };
  /** Package to build: `.` (the folder's main.go), or a `tool` of its go.mod. */
  pkg: string;
  /** The module whose version the log names. */
  pinned: string;
  /** `-X` linker settings for a pinned version, e.g. `v1.36.3`. */
  versionVariables(version: string): string[];
  /** Environment of `go build` on top of ours, e.g. `CGO_ENABLED=0` for a static binary. */
  env?: Record<string, string>;
}

/**
 * Helm's own command, a `tool` of infra/build/helm/go.mod (its main package cannot be imported, and
 * `go build` of a tool package uses the versions that go.sum pins). Helm's Makefile stamps the
 * version the same way; without it `helm version` says only the minor (`v4.3`).
 */
const HELM: Target = {
  name: "helm",
  moduleDir: join(REPO_ROOT, "infra", "build", "helm"),
  pkg: "helm.sh/helm/v4/cmd/helm",
  pinned: "helm.sh/helm/v4",
  versionVariables: (version) => [`-X helm.sh/helm/v4/internal/version.version=${version}`],
};

/** `go build` flags; they go into the stamp, so changing them rebuilds. `-s -w` drops symbol and debug tables. */
function buildFlags(target: Target, version: string): string[] {
  const ldflags = ["-s", "-w", ...target.versionVariables(version)].join(" ");
  const modFile = target.modFile ? [`-modfile=${target.modFile.mod}`] : [];
  const env = Object.entries(target.env ?? {}).map(([name, value]) => `${name}=${value}`);
  return ["-trimpath", "-buildvcs=false", ...modFile, `-ldflags=${ldflags}`, ...env];
}

function log(message: string): void {
  process.stderr.write(`[build] ${message}\n`);
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

async function inputHash(target: Target, goVersion: string, flags: string[]): Promise<string> {
  const hash = createHash("sha256").update(`${goVersion}\n${flags.join(" ")}\n`);
  const moduleFiles = target.modFile ? [target.modFile.mod, target.modFile.sum] : ["go.mod", "go.sum"];
  const files = target.pkg === "." ? [...moduleFiles, "main.go"] : moduleFiles;
  for (const file of files) {
    hash.update(`${file}\n`).update(await readFile(join(target.moduleDir, file)));
  }
  return hash.digest("hex");
}

/** The version of `target.pinned` that its module file requires. */
export async function pinnedVersion(target: Target): Promise<string> {
  const goMod = await readFile(join(target.moduleDir, target.modFile?.mod ?? "go.mod"), "utf8");
  const escaped = target.pinned.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  return new RegExp(`^\\s*(?:require\\s+)?${escaped}\\s+(\\S+)`, "m").exec(goMod)?.[1] ?? "(unknown version)";
}

/** Runs `go build` for one target; go's output goes to a log file whose tail is shown on failure. */
async function goBuild(target: Target, flags: string[], output: string): Promise<void> {
  const logFile = join(BIN_DIR, `${target.name}.build.log`);
  await mkdir(dirname(logFile), { recursive: true });
  const logStream = createWriteStream(logFile);
  const started = Date.now();
  const child = spawn("go", ["build", ...flags.filter((flag) => flag.startsWith("-")), "-o", output, target.pkg], {
    cwd: target.moduleDir,
    env: { ...process.env, ...target.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  // Below the tests' priority: `npm test` builds what later tiers need while earlier tiers run, and a test's
  // timing must not suffer for it. The compiler processes go starts inherit it.
  if (child.pid !== undefined) setPriority(child.pid, 10);
  child.stdout.pipe(logStream, { end: false });
  child.stderr.pipe(logStream, { end: false });
  // CI kills jobs that print nothing for long; a first build takes minutes.
  const heartbeat = setInterval(() => {
    log(`still building ${target.name} (${Math.round((Date.now() - started) / 1000)} s)`);
  }, 60_000);
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once("error", reject);
      child.once("close", resolve);
    });
    await new Promise<void>((resolve) => logStream.end(resolve));
    if (code !== 0) {
      throw new Error(`go build of ${target.name} failed (exit ${code}); log ${logFile}:\n${await tailFile(logFile)}`);
    }
  } finally {
    clearInterval(heartbeat);
  }
}

/** Whether process `pid` is alive. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Removes what a build of `binary` that was killed left behind (`<binary>.partial-<pid>` of a process that is gone),
 * so an interrupted build restarts cleanly; a partial of a build still running is left to it.
 */
export async function removeDeadPartials(binary: string): Promise<void> {
  const prefix = `${basename(binary)}.partial-`;
  const files = await readdir(dirname(binary)).catch(() => []);
  for (const file of files) {
    const pid = Number(file.slice(prefix.length));
    if (file.startsWith(prefix) && Number.isInteger(pid) && !alive(pid))
      await rm(join(dirname(binary), file), { force: true });
  }
}

/**
 * Returns the path of `target` in `.cache/bin`, building it first when it is missing or its stamp (a hash of the
 * module files, the Go toolchain and the flags) differs. `goVersion` is {@link prepareBuild}'s answer.
 * @throws Error when the build fails (with the tail of its log).
 */
export async function ensureBinary(target: Target, goVersion: string): Promise<string> {
  const binary = join(BIN_DIR, target.name);
  const stampFile = `${binary}.stamp`;
  const version = await pinnedVersion(target);
  const flags = buildFlags(target, version);
  const hash = await inputHash(target, goVersion, flags);
  const stamp = await readFile(stampFile, "utf8").catch(() => "");
  if (stamp.trim() === hash && (await exists(binary))) return binary;

  log(
    `building ${target.name} from ${target.pinned} ${version} (an empty Go cache means minutes: module download + compile)`,
  );
  const started = Date.now();
  await removeDeadPartials(binary);
  // Build beside the final path and rename, so an interrupted build never leaves a half binary.
  const partial = `${binary}.partial-${process.pid}`;
  try {
    await goBuild(target, flags, partial);
    await rename(partial, binary);
  } finally {
    await rm(partial, { force: true });
  }
  await writeFile(stampFile, `${hash}\n`);
  log(`built ${target.name} in ${Math.round((Date.now() - started) / 1000)} s`);
  return binary;
}

/**
 * Returns the path of `helm` (Helm v4, the version infra/build/helm/go.mod pins), building it when
 * missing or when its inputs changed (about a minute from an empty Go cache on 2 cores). Kept apart
 * from the dev cluster's binaries (infra/local/build.ts) so `npm run dev` never waits for it; the e2e
 * tier's global setup builds both, the release (infra/build/release/release.ts) only this.
 * @throws Error when `go` is missing or the build fails (with the tail of the build log).
 */
export async function ensureHelm(): Promise<string> {
  return ensureBinary(HELM, await prepareBuild());
}

/** Creates `.cache/bin` and returns the Go toolchain's identity (part of every stamp). */
export async function prepareBuild(): Promise<string> {
  await mkdir(BIN_DIR, { recursive: true });
  return run("go", ["env", "GOVERSION", "GOOS", "GOARCH"]).then(
    ({ stdout }) => stdout.trim().replace(/\s+/g, " "),
    (error: unknown) => {
      throw new Error("`go` is needed to build the local cluster and Helm (Go 1.26 or later): https://go.dev/dl/", {
        cause: error,
      });
    },
  );
}
