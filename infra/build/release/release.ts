/**
 * `npm run release`: every artifact of a release, versioned by package.json, into `dist/release/<version>/` with a
 * `SHA256SUMS` over them (docs/release.md):
 * - `gmsa-webhooks-<v>.oci.tar`: the container image (infra/build/node/image.ts), server and CLI;
 * - `gmsa-webhooks-<v>.tgz`: the Helm chart package (`helm push` takes it to an OCI registry);
 * - `gmsa-webhooks-aws-lambda-<v>.zip` and `gmsa-webhooks-azure-functions-<v>.zip`: the function packages that
 *   `npm run build:lambda` and `npm run build:azure` write, the Azure one with `@azure/functions` installed by
 *   `npm ci` from the package-lock.json the build cuts from the repository's; each lacks only the operator's
 *   kubeconfig;
 * - `gmsa-webhooks-worker-<expand|authorize>-<v>.zip`: each Worker as `wrangler deploy --env <fn>` uploads it
 *   (worker.ts);
 * - `gmsa-webhooks-cli-<v>.mjs`: the CLI, one file for Node 24, and `kubectl-gmsa-<v>.tar.gz`, the same file named
 *   `kubectl-gmsa` for kubectl's plugin lookup and krew.
 * The archives are reproducible (archive.ts); the image is too (oci-archive.ts); the chart is as `helm package` makes it.
 *
 * CLI: `node infra/build/release/release.ts [--tag v<version>] [--image-repository <registry>/<name>] [--out <dir>]`.
 * `--tag` (what the release workflow passes) refuses a tag that is not `v<version>` and a working tree with changes;
 * `--image-repository` makes the published image the chart's default. Prints the release as JSON; progress on stderr.
 */
import { execFile } from "node:child_process";
import { chmod, copyFile, cp, mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs, promisify } from "node:util";
import { WORKER_ENVS } from "../cloudflare/bundle-size.ts";
import { ensureHelm } from "../tools/go-build.ts";
import { CLI_BUNDLE } from "../node/bundle-function.ts";
import { ensureImage } from "../node/image.ts";
import { REPO_ROOT } from "../repo-root.ts";
import { tarGzFolder, writeChecksums, zipFolder } from "./archive.ts";
import { packageChart } from "./chart.ts";
import { checkTag, gitStatus, readPackageVersion } from "./version.ts";
import { buildReleaseWorker } from "./worker.ts";

const run = promisify(execFile);

/**
 * The file name of a function package of the release, `gmsa-webhooks-<platform>-<version>.zip`;
 * docs/install-azure-functions.md names the zip it builds the same way.
 */
export function functionPackageName(platform: "aws-lambda" | "azure-functions", version: string): string {
  return `gmsa-webhooks-${platform}-${version}.zip`;
}

/** Options of {@link buildRelease}. */
export interface ReleaseOptions {
  /** The tag being released, `v<version>`; checked with the working tree when given. */
  tag?: string;
  /** The registry repository the image is pushed to, e.g. `ghcr.io/example/gmsa-webhooks`: the chart's default. */
  imageRepository?: string;
  /** The output folder (emptied first). Default `dist/release/<version>`. */
  outDir?: string;
}

/** What {@link buildRelease} wrote. */
export interface Release {
  version: string;
  /** The output folder. */
  dir: string;
  /** The image's manifest digest (`sha256:...`), the same after a push to a registry. */
  imageDigest: string;
  /** The artifacts' file names in `dir`, sorted, `SHA256SUMS` last. */
  files: string[];
}

function log(message: string): void {
  process.stderr.write(`[release] ${message}\n`);
}

/** `file` relative to the repository when inside it, else as it is. */
function shortPath(file: string): string {
  const relative = path.relative(REPO_ROOT, file);
  return relative.startsWith("..") || path.isAbsolute(relative) ? file : relative;
}

/** Runs one of the repository's build scripts with this Node. */
async function runScript(script: string): Promise<void> {
  await run(process.execPath, [path.join(REPO_ROOT, script)], { cwd: REPO_ROOT });
}

/**
 * `npm ci` of the Azure package, from the package's lock: the versions and hashes of the repository's, not the
 * registry's newest in a range. From npm's cache alone when it holds them (a second, no network); else it says that
 * it needs the registry and fetches with short timeouts, because npm's defaults wait minutes for a registry that
 * does not answer.
 * @throws Error naming the registry when the cache lacks a package and the registry cannot give it.
 */
export async function npmCiAzure(dir: string): Promise<void> {
  // --loglevel: under `npm run --silent` the child npm inherits silence, and its error code is what tells ENOTCACHED.
  const args = ["ci", "--omit=dev", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"];
  const stderrOf = (error: unknown): string => {
    const { stderr } = error as { stderr?: unknown };
    return (typeof stderr === "string" && stderr !== "" ? stderr : (error as Error).message).trim();
  };
  try {
    await run("npm", [...args, "--offline"], { cwd: dir });
    return;
  } catch (error) {
    if (!stderrOf(error).includes("ENOTCACHED"))
      throw new Error(`the Azure package's npm ci failed:\n${stderrOf(error)}`, { cause: error });
  }
  log("npm's cache lacks packages of @azure/functions: fetching them from the npm registry");
  try {
    await run(
      "npm",
      [...args, "--prefer-offline", "--fetch-retries=1", "--fetch-retry-mintimeout=2000", "--fetch-timeout=30000"],
      { cwd: dir },
    );
  } catch (error) {
    const tail = stderrOf(error).split("\n").slice(-3).join("\n");
    throw new Error(
      `the Azure package's npm ci needs the npm registry (or npm's cache holding @azure/functions and its dependencies, as after npm ci):\n${tail}`,
      { cause: error },
    );
  }
}

/**
 * Builds every artifact into the output folder and writes `SHA256SUMS`. Reuses the image and Helm caches (the Azure
 * package's `npm ci` takes npm's cache, or the npm registry).
 * @throws Error naming every problem of a tagged release, or the step that failed.
 */
export async function buildRelease(options: ReleaseOptions = {}): Promise<Release> {
  const version = await readPackageVersion();
  if (options.tag !== undefined) {
    const problems = checkTag(options.tag, version, await gitStatus());
    if (problems.length > 0) throw new Error(`cannot release ${options.tag}:\n- ${problems.join("\n- ")}`);
  }
  const dir = path.resolve(REPO_ROOT, options.outDir ?? path.join("dist", "release", version));
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const work = await mkdtemp(path.join(tmpdir(), "gmsa-release-"));
  try {
    log(`image (cached in .cache/image)`);
    const image = await ensureImage();
    await copyFile(image.archive, path.join(dir, `gmsa-webhooks-${version}.oci.tar`));

    // The image's build made dist/node, the CLI included, from the same sources.
    log("CLI");
    const cli = path.join(dir, `gmsa-webhooks-cli-${version}.mjs`);
    await copyFile(path.join(REPO_ROOT, "dist", "node", CLI_BUNDLE), cli);
    await chmod(cli, 0o755);
    const plugin = path.join(work, "kubectl-gmsa");
    await mkdir(plugin);
    await copyFile(cli, path.join(plugin, "kubectl-gmsa"));
    await chmod(path.join(plugin, "kubectl-gmsa"), 0o755);
    await tarGzFolder(plugin, path.join(dir, `kubectl-gmsa-${version}.tar.gz`));

    log("Helm chart");
    const chartImage =
      options.imageRepository === undefined
        ? {}
        : { image: { repository: options.imageRepository, digest: image.digest } };
    await packageChart({ helm: await ensureHelm(), version, outDir: dir, ...chartImage });

    log("AWS Lambda package");
    await runScript("infra/build/aws/build.ts");
    const lambda = path.join(work, "aws-lambda");
    await cp(path.join(REPO_ROOT, "dist", "aws-lambda"), lambda, { recursive: true });
    await zipFolder(lambda, path.join(dir, functionPackageName("aws-lambda", version)));

    log("Azure Functions package (npm ci --omit=dev)");
    await runScript("infra/build/azure/build.ts");
    const azure = path.join(work, "azure-functions");
    await cp(path.join(REPO_ROOT, "dist", "azure-functions"), azure, { recursive: true });
    await npmCiAzure(azure);
    await zipFolder(azure, path.join(dir, functionPackageName("azure-functions", version)));

    for (const env of WORKER_ENVS) {
      log(`Worker ${env} (wrangler deploy --dry-run)`);
      const bundle = path.join(work, `worker-${env}`);
      await buildReleaseWorker(env, bundle);
      await zipFolder(bundle, path.join(dir, `gmsa-webhooks-worker-${env}-${version}.zip`));
    }

    const files = (await readdir(dir)).sort();
    await writeChecksums(dir, files);
    log(`${files.length} artifacts and SHA256SUMS in ${shortPath(dir)}`);
    return { version, dir, imageDigest: image.digest, files: [...files, "SHA256SUMS"] };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: { tag: { type: "string" }, "image-repository": { type: "string" }, out: { type: "string" } },
  });
  try {
    const release = await buildRelease({
      ...(values.tag === undefined ? {} : { tag: values.tag }),
      ...(values["image-repository"] === undefined ? {} : { imageRepository: values["image-repository"] }),
      ...(values.out === undefined ? {} : { outDir: values.out }),
    });
    console.log(JSON.stringify({ ...release, dir: shortPath(release.dir) }, null, 2));
  } catch (error) {
    console.error(`npm run release: ${(error as Error).message}`);
    process.exitCode = 1;
  }
}
