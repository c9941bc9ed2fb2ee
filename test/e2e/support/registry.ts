/**
 * An OCI registry on loopback for publishing tests: Debian's docker-registry (the CNCF distribution registry, the one
 * Helm's documentation uses) with in-memory storage and plain HTTP, and Debian's skopeo, the tool the release
 * workflow pushes the image with.
 */
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { freePort, startProcess, stopProcess, waitFor } from "../../../infra/local/processes.ts";
import { tailFile } from "../../../infra/build/tools/tail-file.ts";

/** A running registry; `close()` stops it and its contents are gone. */
export interface LocalRegistry {
  /** `127.0.0.1:<port>`, the registry part of image and chart references. */
  host: string;
  close(): Promise<void>;
}

/** Whether `command` is on PATH. */
const onPath = (command: string) =>
  (process.env["PATH"] ?? "").split(path.delimiter).some((dir) => existsSync(path.join(dir, command)));

/**
 * Starts a registry on a free loopback port, with its config and log in `workDir`. docker-registry and skopeo are
 * Debian's, installed before the tier starts (test/tiers.ts, the `registry` step).
 * @throws Error with the registry's log when it does not answer `/v2/` within 20 s.
 */
export async function startLocalRegistry(workDir: string): Promise<LocalRegistry> {
  for (const command of ["docker-registry", "skopeo"])
    if (!onPath(command))
      throw new Error(`${command} is not on PATH: apt-get install -y ${command} (test/tiers.ts prepares it)`);
  const host = `127.0.0.1:${await freePort()}`;
  const config = path.join(workDir, "registry.yml");
  await writeFile(
    config,
    `version: 0.1\nlog: { level: error }\nstorage: { inmemory: {} }\nhttp: { addr: "${host}" }\n`,
  );
  const logFile = path.join(workDir, "registry.log");
  const registry = await startProcess("docker-registry", "docker-registry", ["serve", config], logFile);
  try {
    await waitFor("the registry's /v2/", 20_000, [registry], async () => (await fetch(`http://${host}/v2/`)).ok);
  } catch (error) {
    await stopProcess(registry);
    throw new Error(`${(error as Error).message}\n${await tailFile(logFile)}`, { cause: error });
  }
  return { host, close: () => stopProcess(registry) };
}
