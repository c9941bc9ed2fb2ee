/**
 * The Node binary for the scripts we start ourselves (reaper.ts, exec-plugin.ts). They are .ts
 * files run with Node's type stripping, which Node 24 has and the machines' system Node (20) has
 * not: a parent started by that Node (say `vitest` run without npm) must still start them with
 * the Node 24 that `npm ci` installs from the `node` package.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Absolute path of a Node >= 24: this process's own binary, else the project's. */
export function nodeBinary(): string {
  if (Number(process.versions.node.split(".")[0]) >= 24) return process.execPath;
  const projectNode = fileURLToPath(new URL("../../../node_modules/node/bin/node", import.meta.url));
  return existsSync(projectNode) ? projectNode : process.execPath;
}
