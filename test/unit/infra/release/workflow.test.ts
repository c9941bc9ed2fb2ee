/**
 * The release workflow (.github/workflows/release.yml), which only maintainers run: actionlint finds nothing in it
 * (expressions, action inputs, job permissions, shell), and it asks for no more than it uses, publishes what
 * `npm run release` built for the pushed tag, and signs what it pushes.
 */
import { execFile } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { actionlintArgs, ensureActionlint } from "../../../../infra/release/actionlint.ts";
import { REPO_ROOT } from "../../../../infra/repo-root.ts";
import { tempDir } from "../../../support/temp-dir.ts";

const run = promisify(execFile);
const WORKFLOW = path.join(REPO_ROOT, ".github", "workflows", "release.yml");

interface Workflow {
  on: { push: { tags: string[]; branches?: string[] } };
  permissions: Record<string, string>;
  jobs: Record<string, { permissions: Record<string, string>; steps: { run?: string; uses?: string }[] }>;
}

let actionlint: string;
let workflow: Workflow;
let script: string;

beforeAll(async () => {
  // Built once into .cache/bin (seconds with a warm Go cache), a stat afterwards.
  actionlint = await ensureActionlint();
  workflow = parse(await readFile(WORKFLOW, "utf8")) as Workflow;
  script = Object.values(workflow.jobs).flatMap((job) => job.steps.map((step) => step.run ?? "")).join("\n");
}, 300_000);

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
});
