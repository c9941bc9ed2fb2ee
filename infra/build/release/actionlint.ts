/**
 * actionlint (github.com/rhysd/actionlint), the linter of GitHub Actions workflows, built from the Go module that
 * infra/build/release/actionlint/go.mod pins into `.cache/bin/actionlint`, once, the way infra/build/tools/go-build.ts builds
 * Helm (a stamp of the module files and the Go toolchain; about a minute from an empty Go cache on 2 cores, a
 * stat afterwards). The tools tier runs it over `.github/workflows/` (test/tools/infra/release/workflow.test.ts).
 *
 * CLI: `node infra/build/release/actionlint.ts [files...]` lints the workflows (all of them by default) and exits with
 * actionlint's code.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { REPO_ROOT } from "../repo-root.ts";
import { ensureBinary, prepareBuild, type Target } from "../tools/go-build.ts";

const ACTIONLINT: Target = {
  name: "actionlint",
  moduleDir: path.join(import.meta.dirname, "actionlint"),
  pkg: "github.com/rhysd/actionlint/cmd/actionlint",
  pinned: "github.com/rhysd/actionlint",
  // actionlint reads its version from the module's build information; nothing to stamp.
  versionVariables: () => [],
};

/**
 * Returns the path of `actionlint`, building it when missing or when its inputs changed.
 * @throws Error when `go` is missing or the build fails (with the tail of the build log).
 */
export async function ensureActionlint(): Promise<string> {
  return ensureBinary(ACTIONLINT, await prepareBuild());
}

/**
 * The arguments that lint `files` (default: every workflow) with shellcheck and pyflakes off: they are not tools
 * of this project, and a `run:` step here is a few plain commands.
 */
export function actionlintArgs(files: string[] = []): string[] {
  return ["-no-color", "-shellcheck=", "-pyflakes=", ...files];
}

if (import.meta.main) {
  const binary = await ensureActionlint();
  const result = spawnSync(binary, actionlintArgs(process.argv.slice(2)), { cwd: REPO_ROOT, stdio: "inherit" });
  process.exitCode = result.status ?? 1;
}
