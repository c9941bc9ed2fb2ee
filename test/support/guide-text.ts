/**
 * Reading the install guides in docs/ the way an operator copies from them: their `sh` blocks, and the `aws`
 * commands in those blocks with the flags each one passes.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { REPO_ROOT } from "../../infra/build/repo-root.ts";

/** A file of the repository as text. */
export function readRepoFile(file: string): Promise<string> {
  return readFile(path.join(REPO_ROOT, file), "utf8");
}

/** The bodies of the ```sh blocks of a Markdown text (indented ones in lists too), in order. */
export function shellBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^ *```sh\n([\s\S]*?)^ *```$/gm)].map((match) => match[1]!);
}

/** The inline code spans of a Markdown text that are `aws` commands: what the prose tells an operator to run. */
function inlineAwsCommands(markdown: string): string[] {
  return [...markdown.replace(/\n(?! *\n)/g, " ").matchAll(/`(aws [^`]+)`/g)].map((match) => match[1]!);
}

/** The one `sh` block that contains `marker`. @throws Error when none or several do. */
export function shellBlockWith(markdown: string, marker: string): string {
  const found = shellBlocks(markdown).filter((block) => block.includes(marker));
  if (found.length !== 1) throw new Error(`${found.length} sh blocks contain ${marker}`);
  return found[0]!;
}

/** One `aws` invocation: `lambda add-permission` or `lambda wait function-updated-v2`, and its flags. */
export interface AwsCommand {
  command: string;
  flags: string[];
}

/**
 * Every `aws` command of the `sh` blocks (continuation lines joined, comments dropped; one inside `$(...)` counts
 * too) and of the prose's inline code.
 */
export function awsCommands(markdown: string): AwsCommand[] {
  const commands: AwsCommand[] = [];
  for (const block of [...shellBlocks(markdown), ...inlineAwsCommands(markdown)]) {
    const text = block.replace(/\\\n\s*/g, " ");
    for (const rawLine of text.split("\n")) {
      const line = rawLine.replace(/\s#\s.*$/, "");
      for (const match of line.matchAll(/(?:^|[\s($])aws ([a-z0-9-]+) ([a-z0-9-]+)((?: [a-z0-9-]+)?)([^)]*)/g)) {
        const [, service, operation, waiter, rest] = match;
        const command = operation === "wait" ? `${service} wait${waiter}` : `${service} ${operation}`;
        const flags = [...`${operation === "wait" ? "" : waiter}${rest}`.matchAll(/(?:^|\s)(--[a-z0-9-]+)/g)].map(
          (flag) => flag[1]!,
        );
        commands.push({ command, flags });
      }
    }
  }
  return commands;
}
