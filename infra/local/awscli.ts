/**
 * Debian's `awscli` package, the second implementation the EKS token source is checked against
 * (docs/development.md, Toolchain): `aws eks get-token` presigns offline, and the botocore it vendors re-computes our signatures. Installed with
 * apt-get on first use when running as root; a user's own `aws` (pip, pyenv, the v2 installer) is not used, so the
 * oracle is the same on every machine.
 *
 * CLI: `node infra/local/awscli.ts` installs if needed and prints the paths as JSON.
 */
import { execFile } from "node:child_process";
import { dirname } from "node:path";
import { promisify } from "node:util";
import { aptInstall } from "./apt.ts";

const run = promisify(execFile);

/** Where Debian puts the CLI and the Python that runs it. */
export const DEBIAN_AWS = "/usr/bin/aws";
export const DEBIAN_PYTHON = "/usr/bin/python3";

/** The installed oracle. */
export interface DebianAwsCli {
  /** `/usr/bin/aws`. */
  aws: string;
  /** `/usr/bin/python3`, which runs it. */
  python: string;
  /** The folder to put first on `sys.path` so `import awscli` (and through it `import botocore`) works. */
  pythonPath: string;
  /** e.g. `aws-cli/2.9.19 Python/3.11.2 Linux/... source/x86_64.debian.12 prompt/off`. */
  version: string;
}

async function installedVersion(): Promise<string | undefined> {
  try {
    const { stdout } = await run(DEBIAN_AWS, ["--version"], { env: { PATH: "/usr/bin:/bin" }, timeout: 60_000 });
    return /^aws-cli\/2\./.test(stdout) && stdout.includes("debian") ? stdout.trim() : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Returns Debian's awscli, installing it first when it is missing and we are root.
 * @throws Error with the command to run by hand when it is missing and we are not root, or apt-get fails.
 */
export async function ensureDebianAwsCli(): Promise<DebianAwsCli> {
  let version = await installedVersion();
  if (version === undefined) {
    await aptInstall("awscli");
    version = await installedVersion();
    if (version === undefined)
      throw new Error(`apt-get installed awscli, but ${DEBIAN_AWS} --version is not aws-cli/2.x from Debian`);
  }
  const { stdout } = await run("dpkg", ["-L", "awscli"]);
  const authPy = stdout.split("\n").find((line) => line.endsWith("/awscli/botocore/auth.py"));
  if (authPy === undefined) throw new Error("dpkg -L awscli lists no awscli/botocore/auth.py");
  return { aws: DEBIAN_AWS, python: DEBIAN_PYTHON, pythonPath: dirname(dirname(dirname(authPy))), version };
}

if (import.meta.main) {
  console.log(JSON.stringify(await ensureDebianAwsCli(), null, 2));
}
