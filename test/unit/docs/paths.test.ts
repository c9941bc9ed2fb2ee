/** The docs' links and paths into the repository name files that exist: moving or deleting one leaves none dangling. */
import { existsSync, globSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../../infra/build/repo-root.ts";

const PAGES = globSync(["README.md", "CHANGELOG.md", "docs/*.md", "infra/**/README.md"], { cwd: REPO_ROOT }).sort();
const ROOTS = ["functions/", "shared/", "cli/", "infra/", "test/", "docs/", ".ci/", ".github/"];
/** Placeholders and patterns (`<target>`, `*.yaml`, `{a,b}`, `$DIR`, `...`) name no one file. */
const PATTERN = /[<>*{}$]|\.\.\./;

/** Repository-relative paths a page points at: its relative links, and its backticked paths from a source root. */
function pointers(page: string): string[] {
  const text = readFileSync(path.join(REPO_ROOT, page), "utf8");
  const found = new Set<string>();
  for (const [, target = ""] of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    found.add(path.normalize(path.join(path.dirname(page), target)));
  }
  for (const [, code = ""] of text.matchAll(/`([^`\s]+)`/g)) {
    const candidate = code.replace(/[,.:;)]+$/, "");
    if (ROOTS.some((root) => candidate.startsWith(root)) && !PATTERN.test(candidate)) found.add(candidate);
  }
  // Code blocks: the words of the commands an operator copies, but for the files a command writes (`> file`).
  for (const [, block = ""] of text.matchAll(/^ *```\w*\n([\s\S]*?)^ *```$/gm)) {
    const written = new Set([...block.matchAll(/>\s*([^\s;)]+)/g)].map(([, file = ""]) => file));
    for (const word of block.split(/[\s"'=()]+/)) {
      const candidate = word.replace(/^file:\/\//, "").replace(/[,:;]+$/, "");
      if (ROOTS.some((root) => candidate.startsWith(root)) && !PATTERN.test(candidate) && !written.has(candidate))
        found.add(candidate);
    }
  }
  return [...found];
}

describe("the documentation's paths", () => {
  it("finds the pages", () => {
    expect(PAGES).toContain("README.md");
    expect(PAGES.length).toBeGreaterThan(10);
  });

  it.each(PAGES)("%s points only at files that exist", (page) => {
    expect(pointers(page).filter((target) => !existsSync(path.join(REPO_ROOT, target)))).toEqual([]);
  });
});
