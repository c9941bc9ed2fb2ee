/** apt-get for the Debian packages the tests use as oracles (awscli, python3-prometheus-client), never interactive. */
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Runs apt-get non-interactively (no stdin, `CI=true`), waiting for another job's dpkg lock rather than failing. */
export async function aptGet(args: string[]): Promise<void> {
  const options = ["-o", "DPkg::Lock::Timeout=300", "-q"];
  await run("apt-get", [...options, ...args], {
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive", CI: "true" },
    timeout: 900_000,
  });
}

/**
 * Installs `pkg` with apt-get when running as root, updating the package lists once if the first attempt fails
 * (a fresh machine's lists may be empty or stale).
 * @throws Error with the command to run by hand when we are not root, or the error of apt-get.
 */
export async function aptInstall(pkg: string): Promise<void> {
  if (process.getuid?.() !== 0)
    throw new Error(`Debian's ${pkg} is not installed: run apt-get install -y ${pkg} as root`);
  try {
    await aptGet(["install", "-y", pkg]);
  } catch {
    await aptGet(["update"]);
    await aptGet(["install", "-y", pkg]);
  }
}
