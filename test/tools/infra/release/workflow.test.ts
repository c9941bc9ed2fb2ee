/**
 * The release workflow (.github/workflows/release.yml), which only maintainers run: actionlint finds nothing in it
 * (expressions, action inputs, job permissions, shell), and it asks for no more than it uses, publishes what
 * `npm run release` built for the pushed tag, and signs what it pushes. The steps that need no registry run here in
 * bash as Actions runs them (`bash -eo pipefail`), with `gh` replaced by a recorder: the names derived from the tag
 * and owner, the krew manifest, and the GitHub release with CHANGELOG.md's section as its notes. Publishing itself:
 * test/e2e/release.test.ts.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { actionlintArgs } from "../../../../infra/release/actionlint.ts";
import { preparedProgram } from "../../../support/prepared.ts";
import { REPO_ROOT } from "../../../../infra/repo-root.ts";
import { tempDir } from "../../../support/temp-dir.ts";

const run = promisify(execFile);
const WORKFLOW = path.join(REPO_ROOT, ".github", "workflows", "release.yml");

interface Workflow {
  on: { push: { tags: string[]; branches?: string[] } };
  permissions: Record<string, string>;
  jobs: Record<string, { permissions: Record<string, string>; steps: { name?: string; run?: string; uses?: string }[] }>;
}

interface KrewPlugin {
  spec: { version: string; platforms: { uri: string; sha256: string }[] };
}

let actionlint: string;
let workflow: Workflow;
let script: string;

beforeAll(async () => {
  actionlint = preparedProgram("actionlint");
  workflow = parse(await readFile(WORKFLOW, "utf8")) as Workflow;
  script = Object.values(workflow.jobs).flatMap((job) => job.steps.map((step) => step.run ?? "")).join("\n");
});

/** Runs the step named `name` as Actions does, in the repository, with `env` over a minimal environment. */
async function runStep(name: string, env: Record<string, string>): Promise<string> {
  const step = Object.values(workflow.jobs).flatMap((job) => job.steps).find((candidate) => candidate.name === name);
  if (step?.run === undefined) throw new Error(`no step ${name} with a run script`);
  const { stdout } = await run("bash", ["--noprofile", "--norc", "-eo", "pipefail", "-c", step.run], {
    cwd: REPO_ROOT,
    env: { PATH: process.env["PATH"] ?? "", ...env },
  });
  return stdout;
}

/** actionlint's exit code and output for `files`. */
async function lint(files: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout } = await run(actionlint, actionlintArgs(files), { cwd: REPO_ROOT });
    return { code: 0, output: stdout };
  } catch (error) {
    const { code, stdout = "" } = error as { code?: number; stdout?: string };
    return { code: code ?? -1, output: stdout };
  }
}

describe("the release workflow", () => {
  it("passes actionlint", async () => {
    const result = await lint([WORKFLOW]);
    expect(result.output).toBe("");
    expect(result.code).toBe(0);
  });

  it("is linted for real: actionlint names a job permission that does not exist", async () => {
    const broken = path.join(await tempDir(), "release.yml");
    await writeFile(broken, (await readFile(WORKFLOW, "utf8")).replace("packages: write", "packagez: write"));
    const result = await lint([broken]);
    expect(result.code).toBe(1);
    expect(result.output).toContain("packagez");
  });

  it("pins every action by commit", () => {
    const uses = Object.values(workflow.jobs).flatMap((job) => job.steps.flatMap((step) => (step.uses === undefined ? [] : [step.uses])));
    expect(uses.length).toBeGreaterThan(0);
    for (const action of uses) expect(action).toMatch(/^[\w.-]+\/[\w.-]+@[0-9a-f]{40}$/);
  });

  it("runs only for v* tags", () => {
    expect(workflow.on).toEqual({ push: { tags: ["v*"] } });
  });

  it("grants nothing by default and the job only contents, packages and id-token write", () => {
    expect(workflow.permissions).toEqual({});
    for (const job of Object.values(workflow.jobs)) {
      expect(job.permissions).toEqual({ contents: "write", packages: "write", "id-token": "write" });
    }
  });

  it("builds with npm run release for the pushed tag and checks the checksums", () => {
    expect(script).toContain('npm run --silent release -- --tag "$GITHUB_REF_NAME"');
    expect(script).toContain("sha256sum -c SHA256SUMS");
  });

  it("pushes the image and the chart, signs both and the checksums, and attaches the files", () => {
    expect(script).toMatch(/skopeo copy .*oci-archive:.*\.oci\.tar/);
    expect(script).toMatch(/helm push .*\.tgz/);
    expect(script).toContain('cosign sign --yes "$IMAGE@$expected"');
    expect(script).toContain('cosign sign --yes "$CHARTS/gmsa-webhooks@$digest"');
    expect(script).toContain("cosign sign-blob");
    expect(script).toMatch(/gh release create .*--verify-tag/s);
  });

  it("derives the version, folder and lower-case registry names from the tag and owner", async () => {
    const output = path.join(await tempDir(), "output");
    await writeFile(output, "");
    await runStep("Names", { GITHUB_REF_NAME: "v1.2.3", GITHUB_REPOSITORY_OWNER: "Example-Org", REGISTRY: "ghcr.io", GITHUB_OUTPUT: output });
    expect((await readFile(output, "utf8")).trim().split("\n")).toEqual([
      "version=1.2.3",
      "dir=dist/release/1.2.3",
      "image=ghcr.io/example-org/gmsa-webhooks",
      "charts=ghcr.io/example-org/charts",
    ]);
  });

  it("renders the krew manifest for the release's kubectl-gmsa archive, its URL and checksum", async () => {
    const dir = await tempDir();
    await writeFile(path.join(dir, "kubectl-gmsa-1.2.3.tar.gz"), "archive");
    await runStep("Krew manifest", { VERSION: "1.2.3", DIR: dir, GITHUB_REF_NAME: "v1.2.3", GITHUB_REPOSITORY: "example-org/gmsa-webhooks" });
    const manifest = parse(await readFile(path.join(dir, "kubectl-gmsa.krew.yaml"), "utf8")) as KrewPlugin;
    const sum = createHash("sha256").update("archive").digest("hex");
    expect(manifest.spec.version).toBe("v1.2.3");
    expect(manifest.spec.platforms.map((p) => [p.uri, p.sha256])).toContainEqual([
      "https://github.com/example-org/gmsa-webhooks/releases/download/v1.2.3/kubectl-gmsa-1.2.3.tar.gz",
      sum,
    ]);
  });

  it("creates the GitHub release from the tag with every file and CHANGELOG.md's section as notes", async () => {
    const temp = await tempDir();
    const bin = path.join(temp, "bin");
    const dir = path.join(temp, "release");
    await mkdir(bin);
    await mkdir(dir);
    for (const file of ["a.zip", "SHA256SUMS"]) await writeFile(path.join(dir, file), file);
    // gh's stand-in records its arguments, one per line, and the notes file it was given.
    await writeFile(path.join(bin, "gh"), `#!/bin/sh\nprintf '%s\\n' "$@" > "${temp}/gh.args"\nwhile [ "$1" != --notes-file ]; do shift; done\ncp "$2" "${temp}/notes"\n`);
    await chmod(path.join(bin, "gh"), 0o755);
    const version = JSON.parse(await readFile(path.join(REPO_ROOT, "package.json"), "utf8")) as { version: string };
    await runStep("GitHub release", {
      PATH: `${bin}:${process.env["PATH"] ?? ""}`,
      GH_TOKEN: "unused",
      VERSION: version.version,
      DIR: dir,
      RUNNER_TEMP: temp,
      GITHUB_REF_NAME: `v${version.version}`,
      GITHUB_REPOSITORY: "example-org/gmsa-webhooks",
    });
    const args = (await readFile(path.join(temp, "gh.args"), "utf8")).trim().split("\n");
    expect(args.slice(0, 5)).toEqual(["release", "create", `v${version.version}`, "--repo", "example-org/gmsa-webhooks"]);
    expect(args).toContain("--verify-tag");
    expect(args.slice(-2)).toEqual([path.join(dir, "SHA256SUMS"), path.join(dir, "a.zip")]);
    const notes = await readFile(path.join(temp, "notes"), "utf8");
    const changelog = await readFile(path.join(REPO_ROOT, "CHANGELOG.md"), "utf8");
    const section = changelog.slice(changelog.indexOf(`## [${version.version}]`));
    expect(section).toContain(notes.trim().split("\n")[0]!);
    expect(notes).not.toContain("## [");
    expect(notes).not.toMatch(/^\[[^\]]+\]: /m);
  });

  it("fails the GitHub release when CHANGELOG.md has no section for the version", async () => {
    const temp = await tempDir();
    const env = { VERSION: "99.0.0", DIR: temp, RUNNER_TEMP: temp, GITHUB_REF_NAME: "v99.0.0", GITHUB_REPOSITORY: "o/r", GH_TOKEN: "unused" };
    await expect(runStep("GitHub release", env)).rejects.toMatchObject({ stdout: expect.stringContaining("no section ## [99.0.0]") as unknown });
  });
});
