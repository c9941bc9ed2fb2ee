/**
 * Debian packages the local tools need, installed by the project's own code (never assumed present): apt-get
 * with no stdin and no prompts, when running as root.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Runs apt-get non-interactively, waiting up to 5 minutes for another job's dpkg lock rather than failing. */
export async function aptGet(args: string[]): Promise<void> {
  const options = ["-o", "DPkg::Lock::Timeout=300", "-q"];
  await run("apt-get", [...options, ...args], { env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" }, timeout: 900_000 });
}

/**
 * Installs a Debian package as root, refreshing the package lists once when the first attempt fails (a fresh
 * machine's lists may be empty or stale).
 * @throws Error naming the command to run by hand when we are not root; the apt-get error when it fails.
 */
export async function aptInstall(pkg: string): Promise<void> {
  if (process.getuid?.() !== 0) throw new Error(`Debian's ${pkg} is not installed: run apt-get install -y ${pkg} as root`);
  try {
    await aptGet(["install", "-y", pkg]);
  } catch {
    await aptGet(["update"]);
    await aptGet(["install", "-y", pkg]);
  }
}
