/**
 * The release workflow (.github/workflows/release.yml), which only maintainers run: actionlint, what each job may do
 * and in which order, and the steps that need no registry run in bash as Actions runs them (`bash -eo pipefail`),
 * with `gh` and `skopeo` replaced by stand-ins. Publishing itself: test/e2e/release.test.ts.
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { actionlintArgs } from "../../../../infra/build/release/actionlint.ts";
import { writeChecksums } from "../../../../infra/build/release/archive.ts";
import { preparedProgram } from "../../../support/prepared.ts";
import { REPO_ROOT } from "../../../../infra/build/repo-root.ts";
import { standIns } from "../../../support/run-child.ts";
import { tempDir } from "../../../support/temp-dir.ts";
import { run } from "../../support/run.ts";

const WORKFLOW = path.join(REPO_ROOT, ".github", "workflows", "release.yml");

interface Step {
  name?: string;
  run?: string;
  uses?: string;
  with?: Record<string, string>;
  env?: Record<string, string>;
}

interface Job {
  needs?: string | string[];
  permissions: Record<string, string>;
  steps: Step[];
}

interface Workflow {
  on: { push: { tags: string[]; branches?: string[] } };
  permissions: Record<string, string>;
  jobs: Record<string, Job>;
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
  script = Object.values(workflow.jobs).map(runs).join("\n");
});

/** The run scripts of `job`, one after another. */
function runs(job: Job): string {
  return job.steps.map((step) => step.run ?? "").join("\n");
}

/** Runs the step named `name` as Actions does, in `cwd` (the repository), with `env` over a minimal environment. */
async function runStep(name: string, env: Record<string, string>, cwd = REPO_ROOT): Promise<string> {
  const step = Object.values(workflow.jobs)
    .flatMap((job) => job.steps)
    .find((candidate) => candidate.name === name);
  if (step?.run === undefined) throw new Error(`no step ${name} with a run script`);
  const { stdout } = await run("bash", ["--noprofile", "--norc", "-eo", "pipefail", "-c", step.run], {
    cwd,
    env: { PATH: process.env["PATH"] ?? "", ...env },
  });
  return stdout;
}

/** A CHANGELOG.md of a released 1.2.3, as a maintainer leaves it before tagging. */
const RELEASED = `# Changelog

## [Unreleased]

## [1.2.3] - 2026-01-02

### Added

- The webhooks.

[Unreleased]: ../../compare/v1.2.3...HEAD
[1.2.3]: ../../releases/tag/v1.2.3
`;

/** A folder holding `text` as CHANGELOG.md, to run a step in. */
async function changelogOf(text: string): Promise<string> {
  const dir = await tempDir();
  await writeFile(path.join(dir, "CHANGELOG.md"), text);
  return dir;
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
    const uses = Object.values(workflow.jobs).flatMap((job) =>
      job.steps.flatMap((step) => (step.uses === undefined ? [] : [step.uses])),
    );
    expect(uses.length).toBeGreaterThan(0);
    for (const action of uses) expect(action).toMatch(/^[\w.-]+\/[\w.-]+@[0-9a-f]{40}$/);
  });

  it("runs only for v* tags", () => {
    expect(workflow.on).toEqual({ push: { tags: ["v*"] } });
  });

  it("grants nothing by default, the build job only contents: read, and the publish job the writes it uses", () => {
    expect(workflow.permissions).toEqual({});
    expect(Object.keys(workflow.jobs).sort()).toEqual(["build", "publish"]);
    expect(workflow.jobs["build"]!.permissions).toEqual({ contents: "read" });
    expect(workflow.jobs["publish"]!.permissions).toEqual({
      contents: "write",
      packages: "write",
      "id-token": "write",
    });
  });

  it("builds with npm ci and npm run release for the pushed tag in the read-only job, and uploads what it built", () => {
    const build = workflow.jobs["build"]!;
    expect(runs(build)).toContain("npm ci ");
    expect(runs(build)).toContain('npm run --silent release -- --tag "$GITHUB_REF_NAME"');
    const uploads = build.steps
      .filter((step) => step.uses?.startsWith("actions/upload-artifact@") === true)
      .map((step) => step.with?.["name"]);
    expect(uploads).toEqual(["release", "release-notes"]);
    expect(build.steps.find((step) => step.with?.["name"] === "release")?.with?.["path"]).toBe(
      "${{ steps.names.outputs.dir }}",
    );
  });

  it("publishes after the build from its artifacts alone: no npm, no Node, no repository code", () => {
    const publish = workflow.jobs["publish"]!;
    expect(publish.needs).toBe("build");
    expect(publish.steps.filter((step) => /\bnpm\b|\bnpx\b|\bnode\b/.test(step.run ?? ""))).toEqual([]);
    expect(publish.steps.filter((step) => step.uses?.startsWith("actions/setup-node@") === true)).toEqual([]);
    const downloads = publish.steps
      .filter((step) => step.uses?.startsWith("actions/download-artifact@") === true)
      .map((step) => step.with?.["name"]);
    expect(downloads).toEqual(["release", "release-notes"]);
    // Its checkout is Helm's module files only, which the Go toolchain reads and no step runs.
    const checkouts = publish.steps.filter((step) => step.uses?.startsWith("actions/checkout@") === true);
    expect(checkouts.map((step) => step.with)).toEqual([
      { "persist-credentials": false, "sparse-checkout": "infra/build/helm", "sparse-checkout-cone-mode": false },
    ]);
  });

  it("runs every check in the build job before npm ci and the build: the tag, the CHANGELOG section, the Node release, the lint", () => {
    const steps = workflow.jobs["build"]!.steps;
    const at = (pattern: RegExp): number => steps.findIndex((step) => pattern.test(step.run ?? ""));
    const install = at(/^npm ci /);
    const build = at(/npm run --silent release/);
    expect(at(/node infra\/build\/release\/version\.ts --tag "\$GITHUB_REF_NAME"/)).toBeGreaterThan(-1);
    expect(at(/node infra\/build\/release\/version\.ts/)).toBeLessThan(install);
    expect(at(/CHANGELOG\.md has no section/)).toBeLessThan(install);
    expect(at(/node infra\/build\/node\/node-release\.ts --official/)).toBeLessThan(install);
    expect(at(/node infra\/build\/release\/actionlint\.ts \.github\/workflows\/release\.yml/)).toBeLessThan(build);
    expect(at(/node infra\/build\/release\/actionlint\.ts/)).toBeGreaterThan(install);
  });

  it("checks the Node.js project's release: the pinned keyring's hash, then the signature, then the tarball and bin/node", () => {
    const step = workflow.jobs["build"]!.steps.find((candidate) => candidate.name === "Node release")!;
    const env = step.env ?? {};
    expect(env["KEYRING_URL"]).toMatch(
      /^https:\/\/raw\.githubusercontent\.com\/nodejs\/release-keys\/[0-9a-f]{40}\/gpg\/pubring\.kbx$/,
    );
    expect(env["KEYRING_SHA256"]).toMatch(/^[0-9a-f]{64}$/);
    const script = step.run!;
    const order = [
      "sha256sum -c",
      "SHASUMS256.txt.sig",
      "gpgv --keyring",
      "node infra/build/node/node-release.ts --official",
    ].map((text) => script.indexOf(text));
    expect(order.every((index) => index > -1)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it("fails the tag check when the tag does not name package.json's version", async () => {
    await expect(runStep("Tag", { GITHUB_REF_NAME: "v99.0.0" })).rejects.toMatchObject({
      stderr: expect.stringContaining("does not name package.json's version") as unknown,
    });
  });

  it("checks the checksums and the CHANGELOG section before the first push", () => {
    const publish = workflow.jobs["publish"]!.steps;
    const firstPush = publish.findIndex((step) => /skopeo copy|helm push|cosign sign|gh release/.test(step.run ?? ""));
    const verify = publish.findIndex((step) => step.run?.includes("sha256sum -c SHA256SUMS") === true);
    expect(firstPush).toBeGreaterThan(-1);
    expect(verify).toBeGreaterThan(-1);
    expect(verify).toBeLessThan(firstPush);
    expect(
      publish.slice(0, verify).filter((step) => step.uses?.startsWith("actions/download-artifact@") === true),
    ).toHaveLength(2);
    // A missing section fails the build job, so publishing never starts.
    expect(runs(workflow.jobs["build"]!)).toContain("CHANGELOG.md has no section");
    expect(runs(workflow.jobs["publish"]!)).not.toContain("CHANGELOG.md");
  });

  it("pushes the image and the chart, signs both and the checksums, and attaches the files", () => {
    expect(script).toMatch(/skopeo copy .*oci-archive:.*\.oci\.tar/);
    expect(script).toMatch(/helm push .*\.tgz/);
    expect(script).toContain('cosign sign --yes "$IMAGE@$IMAGE_DIGEST"');
    expect(script).toContain('cosign sign --yes "$CHARTS/gmsa-webhooks@$digest"');
    expect(script).toContain("cosign sign-blob");
    expect(script).toMatch(/gh release create .*--verify-tag/s);
  });

  it("derives the version, folder and lower-case registry names from the tag and owner", async () => {
    const output = path.join(await tempDir(), "output");
    await writeFile(output, "");
    await runStep("Names", {
      GITHUB_REF_NAME: "v1.2.3",
      GITHUB_REPOSITORY_OWNER: "Example-Org",
      REGISTRY: "ghcr.io",
      GITHUB_OUTPUT: output,
    });
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
    await runStep("Krew manifest", {
      VERSION: "1.2.3",
      DIR: dir,
      GITHUB_REF_NAME: "v1.2.3",
      GITHUB_REPOSITORY: "example-org/gmsa-webhooks",
    });
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
    const dir = path.join(temp, "release");
    await mkdir(dir);
    for (const file of ["a.zip", "SHA256SUMS"]) await writeFile(path.join(dir, file), file);
    // gh's stand-in records its arguments, one per line, and the notes file it was given.
    const PATH = await standIns(temp, {
      gh: `#!/bin/sh\nprintf '%s\\n' "$@" > "${temp}/gh.args"\nwhile [ "$1" != --notes-file ]; do shift; done\ncp "$2" "${temp}/gh.notes"\n`,
    });
    // The build job writes the notes, the publish job gets them as an artifact in the same place.
    await runStep("Release notes", { VERSION: "1.2.3", RUNNER_TEMP: temp }, await changelogOf(RELEASED));
    await runStep("GitHub release", {
      PATH,
      GH_TOKEN: "unused",
      VERSION: "1.2.3",
      DIR: dir,
      RUNNER_TEMP: temp,
      GITHUB_REF_NAME: "v1.2.3",
      GITHUB_REPOSITORY: "example-org/gmsa-webhooks",
    });
    const args = (await readFile(path.join(temp, "gh.args"), "utf8")).trim().split("\n");
    expect(args.slice(0, 5)).toEqual(["release", "create", "v1.2.3", "--repo", "example-org/gmsa-webhooks"]);
    expect(args).toContain("--verify-tag");
    expect(args.slice(-2)).toEqual([path.join(dir, "SHA256SUMS"), path.join(dir, "a.zip")]);
    const notes = await readFile(path.join(temp, "gh.notes"), "utf8");
    expect(notes.trim()).toBe("### Added\n\n- The webhooks.");
    expect(notes).not.toContain("## [");
    expect(notes).not.toMatch(/^\[[^\]]+\]: /m);
  });

  it.each([
    // The repository's own CHANGELOG.md.
    ["has no section for the version", "99.0.0", undefined, "no section ## [99.0.0]"],
    [
      'dates the section "- Unreleased"',
      "1.2.3",
      RELEASED.replace("## [1.2.3] - 2026-01-02", "## [1.2.3] - Unreleased"),
      "no section ## [1.2.3] - <yyyy-mm-dd>",
    ],
  ])("fails the build job's release notes when CHANGELOG.md %s", async (_, VERSION, changelog, message) => {
    const cwd = changelog === undefined ? REPO_ROOT : await changelogOf(changelog);
    await expect(runStep("Release notes", { VERSION, RUNNER_TEMP: await tempDir() }, cwd)).rejects.toMatchObject({
      stdout: expect.stringContaining(message) as unknown,
    });
  });

  describe("the publish job's checks before its first push", () => {
    const DIGEST = `sha256:${"d".repeat(64)}`;

    /** A downloaded release: a file, the image archive and their SHA256SUMS; the notes beside it; skopeo that reports `digest`. */
    async function downloaded(digest: string): Promise<{ dir: string; env: Record<string, string> }> {
      const temp = await tempDir();
      const dir = path.join(temp, "release");
      await mkdir(dir);
      await mkdir(path.join(temp, "notes"));
      await writeFile(path.join(temp, "notes", "notes.md"), "### Added\n");
      for (const file of ["a.zip", "gmsa-webhooks-1.2.3.oci.tar"]) await writeFile(path.join(dir, file), file);
      await writeChecksums(dir, ["a.zip", "gmsa-webhooks-1.2.3.oci.tar"]);
      const PATH = await standIns(temp, {
        skopeo: `#!/bin/sh\ntest "$1 $2 $3" = "inspect --format {{.Digest}}" && test "$4" = "oci-archive:${dir}/gmsa-webhooks-1.2.3.oci.tar" && echo ${digest}\n`,
      });
      return { dir, env: { PATH, VERSION: "1.2.3", DIR: dir, RUNNER_TEMP: temp, IMAGE_DIGEST: DIGEST } };
    }

    it("pass when every checksum matches and the image archive holds the digest the chart pins", async () => {
      const { env } = await downloaded(DIGEST);
      const output = await runStep("Verify the checksums", env);
      expect(output).toContain("a.zip: OK");
    });

    it("fail when a downloaded file differs from SHA256SUMS", async () => {
      const { dir, env } = await downloaded(DIGEST);
      await writeFile(path.join(dir, "a.zip"), "changed");
      await expect(runStep("Verify the checksums", env)).rejects.toMatchObject({
        stdout: expect.stringContaining("a.zip: FAILED") as unknown,
      });
    });

    it("fail when the image archive holds another digest than the chart pins", async () => {
      const { env } = await downloaded(`sha256:${"e".repeat(64)}`);
      await expect(runStep("Verify the checksums", env)).rejects.toMatchObject({
        stdout: expect.stringContaining(`the chart pins ${DIGEST}`) as unknown,
      });
    });
  });
});
