/**
 * `npm run release` (infra/build/release/release.ts) as the release workflow runs it, into a temporary folder, with the
 * image and Helm the global setup built (cached, not rebuilt); then the workflow's publishing, without its login and
 * signatures, to a registry on loopback, and `helm install oci://...` (`--dry-run=server` against the local API server)
 * of what it published, as docs/release.md tells an operator. What the image holds: test/tools/infra/image.test.ts.
 */
import { execFile } from "node:child_process";
import { mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { buildRelease, type Release } from "../../infra/build/release/release.ts";
import { tempDir } from "../support/temp-dir.ts";
import { createHelmRunner, inClusterTestValues, type HelmRunner } from "./support/helm.ts";
import { ofKind, parseObjects } from "./support/manifests.ts";
import { startLocalRegistry, type LocalRegistry } from "./support/registry.ts";

const run = promisify(execFile);
const cluster = inject("cluster");
const NAMESPACE = "gmsa-release-test";

let registry: LocalRegistry;
let repository: string;
let release: Release;
let helm: HelmRunner;
const version = (JSON.parse(await readFile("package.json", "utf8")) as { version: string }).version;
const artifact = (name: string): string => path.join(release.dir, name);

/** The entries of a zip file. */
async function zipEntries(file: string): Promise<string[]> {
  const { stdout } = await run("zipinfo", ["-1", file]);
  return stdout.trim().split("\n");
}

/** The in-cluster test values without an image: the chart's default is the one under test. */
const { image: _image, ...VALUES_WITHOUT_IMAGE } = inClusterTestValues("t".repeat(32));

beforeAll(async () => {
  const work = await tempDir("release-e2e-");
  registry = await startLocalRegistry(work);
  repository = `${registry.host}/gmsa-webhooks`;
  release = await buildRelease({ outDir: path.join(work, "out"), imageRepository: repository });
  helm = await createHelmRunner(inject("helm"));
}, 300_000);

afterAll(async () => {
  await helm?.close();
  await registry?.close();
});

describe("npm run release", () => {
  it("writes every artifact, versioned, with SHA256SUMS last", () => {
    expect(release.version).toBe(version);
    expect(release.files).toEqual([
      `gmsa-webhooks-${version}.oci.tar`,
      `gmsa-webhooks-${version}.tgz`,
      `gmsa-webhooks-aws-lambda-${version}.zip`,
      `gmsa-webhooks-azure-functions-${version}.zip`,
      `gmsa-webhooks-cli-${version}.mjs`,
      `gmsa-webhooks-worker-authorize-${version}.zip`,
      `gmsa-webhooks-worker-expand-${version}.zip`,
      `kubectl-gmsa-${version}.tar.gz`,
      "SHA256SUMS",
    ]);
  });

  it("writes checksums that sha256sum -c verifies, one per artifact", async () => {
    const { stdout } = await run("sha256sum", ["-c", "SHA256SUMS"], { cwd: release.dir });
    expect(stdout.trim().split("\n")).toEqual(release.files.slice(0, -1).map((file) => `${file}: OK`));
  });

  it("packages the chart at the release's version, defaulting to the published image by digest", async () => {
    const result = await helm.run(["show", "chart", artifact(`gmsa-webhooks-${version}.tgz`)]);
    expect(result.stdout).toMatch(new RegExp(`^version: ${version.replaceAll(".", "\\.")}$`, "m"));
    expect(result.stdout).toMatch(new RegExp(`^appVersion: ${version.replaceAll(".", "\\.")}$`, "m"));
    const rendered = await helm.run(["template", "gw", artifact(`gmsa-webhooks-${version}.tgz`), "-n", NAMESPACE], {
      values: VALUES_WITHOUT_IMAGE,
    });
    expect(rendered.stderr).toBe("");
    const images = ofKind(parseObjects(rendered.stdout), "Deployment").flatMap((object) =>
      (object.spec as { template: { spec: { containers: { image: string }[] } } }).template.spec.containers.map(
        (container) => container.image,
      ),
    );
    expect(images.length).toBeGreaterThan(0);
    for (const image of images) expect(image).toBe(`${repository}@${release.imageDigest}`);
  });

  it("bundles the CLI into one file that Node 24 runs without node_modules: --help and token --help", async () => {
    const cli = artifact(`gmsa-webhooks-cli-${version}.mjs`);
    const help = await run(process.execPath, [cli, "--help"], { cwd: release.dir });
    expect(help.stdout).toMatch(/^Usage: gmsa-webhooks <command>/);
    const token = await run(process.execPath, [cli, "token", "--help"], { cwd: release.dir });
    expect(token.stdout).toMatch(/^Usage: gmsa-webhooks token <eks \| aks \| gke>/);
  });

  it("ships the same CLI as an executable kubectl-gmsa for kubectl's plugin lookup", async () => {
    const unpacked = path.join(release.dir, "..", "plugin");
    await mkdir(unpacked);
    await run("tar", ["-xzf", artifact(`kubectl-gmsa-${version}.tar.gz`), "-C", unpacked]);
    const { stdout } = await run("ls", ["-l", path.join(unpacked, "kubectl-gmsa")]);
    expect(stdout).toMatch(/^-rwxr-xr-x/);
    expect(await readFile(path.join(unpacked, "kubectl-gmsa"))).toEqual(
      await readFile(artifact(`gmsa-webhooks-cli-${version}.mjs`)),
    );
  });

  it("zips the Lambda and Azure packages with their entry, the CLI, and (Azure) @azure/functions installed", async () => {
    const lambda = await zipEntries(artifact(`gmsa-webhooks-aws-lambda-${version}.zip`));
    expect(lambda).toEqual(expect.arrayContaining(["index.mjs", "gmsa-webhooks.mjs"]));
    expect(lambda.filter((entry) => entry.startsWith("node_modules/"))).toEqual([]);
    const azure = await zipEntries(artifact(`gmsa-webhooks-azure-functions-${version}.zip`));
    expect(azure).toEqual(
      expect.arrayContaining([
        "index.mjs",
        "gmsa-webhooks.mjs",
        "host.json",
        "package.json",
        "package-lock.json",
        "node_modules/@azure/functions/package.json",
      ]),
    );
  });

  it("zips each Worker as wrangler deploy uploads it, with no build path or time in it", async () => {
    for (const fn of ["expand", "authorize"]) {
      const file = artifact(`gmsa-webhooks-worker-${fn}-${version}.zip`);
      expect(await zipEntries(file)).toEqual(["index.js", "index.js.map"]);
      const { stdout: map } = await run("unzip", ["-p", file, "index.js.map"], { maxBuffer: 64 * 2 ** 20 });
      expect((JSON.parse(map) as { sourceRoot: string }).sourceRoot).toBe("");
      expect(map).not.toContain(process.cwd());
    }
  });
});

describe("publishing as the release workflow does, to a registry on loopback", () => {
  it("pushes the image archive with skopeo under the digest the chart pins", async () => {
    const digestFile = path.join(release.dir, "..", "image.digest");
    const archive = `oci-archive:${artifact(`gmsa-webhooks-${version}.oci.tar`)}`;
    await run("skopeo", [
      "copy",
      "--dest-tls-verify=false",
      "--digestfile",
      digestFile,
      archive,
      `docker://${repository}:${version}`,
    ]);
    expect(await readFile(digestFile, "utf8")).toBe(release.imageDigest);
    const { stdout } = await run("skopeo", ["inspect", "--tls-verify=false", `docker://${repository}:${version}`]);
    expect((JSON.parse(stdout) as { Digest: string }).Digest).toBe(release.imageDigest);
  }, 120_000);

  it("pushes the chart with helm push and installs it from oci:// with the published image (--dry-run=server)", async () => {
    const pushed = await helm.run([
      "push",
      artifact(`gmsa-webhooks-${version}.tgz`),
      `oci://${registry.host}/charts`,
      "--plain-http",
    ]);
    expect(pushed.code).toBe(0);
    expect(`${pushed.stdout}${pushed.stderr}`).toMatch(/^Digest: sha256:[0-9a-f]{64}$/m);
    // Not the docs' release name: the shared cluster already holds infra/deploy/rbac's ClusterRoles of that name.
    const install = [
      "install",
      "gmsa-release",
      `oci://${registry.host}/charts/gmsa-webhooks`,
      "--version",
      version,
      "--plain-http",
    ];
    const result = await helm.run([...install, "-n", NAMESPACE, "--dry-run=server"], {
      values: VALUES_WITHOUT_IMAGE,
      kubeconfig: cluster.adminKubeconfig,
    });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("STATUS: pending-install");
    expect(result.stdout).toContain(`image: ${repository}@${release.imageDigest}`);
  }, 120_000);
});
