/**
 * The release's version and the checks a tagged release must pass: the tag names package.json's version, and the
 * working tree holds no change that the tag does not (the artifacts must be what the tag's commit builds).
 *
 * CLI: `node infra/build/release/version.ts --tag v<version>` runs those checks alone and exits 1 naming every problem: the
 * release workflow's first check, before it installs or builds anything (`npm run release -- --tag` repeats it).
 */
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs, promisify } from "node:util";
import { REPO_ROOT } from "../repo-root.ts";

const run = promisify(execFile);

/** package.json's `version`, the version of every artifact. */
export async function readPackageVersion(): Promise<string> {
  const { version } = JSON.parse(await readFile(path.join(REPO_ROOT, "package.json"), "utf8")) as { version?: unknown };
  if (typeof version !== "string" || !/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version)) {
    throw new Error(`package.json: version ${JSON.stringify(version)} is not a semantic version (1.2.3 or 1.2.3-rc.1)`);
  }
  return version;
}

/**
 * What is wrong with releasing `version` under `tag`: the tag must be `v<version>` exactly, and `dirty` (the output
 * of `git status --porcelain`) empty. Returns one message per problem; empty means fine.
 */
export function checkTag(tag: string, version: string, dirty: string): string[] {
  const problems: string[] = [];
  if (tag !== `v${version}`)
    problems.push(`tag ${tag} does not name package.json's version ${version}: tag v${version}, or bump the version`);
  const changed = dirty.split("\n").filter((line) => line.trim() !== "");
  if (changed.length > 0) {
    const shown = changed
      .slice(0, 5)
      .map((line) => line.slice(3))
      .join(", ");
    problems.push(
      `the working tree differs from the tag's commit (${shown}${changed.length > 5 ? ", ..." : ""}): commit or stash first`,
    );
  }
  return problems;
}

/** `git status --porcelain` of the repository: changed and untracked files, ignored ones left out. */
export async function gitStatus(): Promise<string> {
  const { stdout } = await run("git", ["status", "--porcelain"], { cwd: REPO_ROOT });
  return stdout;
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { tag: { type: "string" } } });
  if (values.tag === undefined) throw new Error("usage: node infra/build/release/version.ts --tag v<version>");
  const problems = checkTag(values.tag, await readPackageVersion(), await gitStatus());
  for (const problem of problems) console.error(`cannot release ${values.tag}: ${problem}`);
  process.exitCode = problems.length > 0 ? 1 : 0;
}
