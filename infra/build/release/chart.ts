/**
 * The Helm chart package of a release: `helm package` of infra/deploy/helm/gmsa-webhooks with the chart's `version` and
 * `appVersion` set to the release's version, and, when the release publishes its image, the image's repository and
 * digest as the chart's defaults, so `helm install oci://...` runs the image published with it and nothing else.
 * The chart's files are dated as the other archives' entries (archive.ts), so the package is reproducible too.
 * Helm is the project's own (infra/build/tools/go-build.ts builds it from infra/build/helm/go.mod), run with its cache,
 * config and data folders in a temporary folder.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { isMap, isScalar, parseDocument } from "yaml";
import { CHART_DIR } from "../helm/chart-dir.ts";
import { createHelmRunner } from "../tools/helm-runner.ts";
import { dateFiles } from "./archive.ts";

/** What {@link packageChart} packages. */
export interface PackageChartOptions {
  /** The `helm` binary. */
  helm: string;
  /** The chart's `version` and `appVersion`. */
  version: string;
  /** The folder the package goes into, as `gmsa-webhooks-<version>.tgz`. */
  outDir: string;
  /** The published image: the chart's default `image.repository` and `image.digest`. Default: left empty. */
  image?: { repository: string; digest: string };
}

/** Sets the image's repository and digest in the values file `file`, keeping its comments. */
async function setImageDefaults(file: string, image: { repository: string; digest: string }): Promise<void> {
  const values = parseDocument(await readFile(file, "utf8"));
  values.setIn(["image", "repository"], image.repository);
  values.setIn(["image", "digest"], image.digest);
  // The checkout's comment says no image is published; this chart's release published one.
  const top = values.contents;
  if (isMap(top)) {
    const key = top.items.find((pair) => isScalar(pair.key) && pair.key.value === "image")?.key;
    if (isScalar(key))
      key.commentBefore =
        " In-cluster workloads. image: the one published with this chart, pinned by digest (tag: the appVersion).";
  }
  await writeFile(file, values.toString());
}

/**
 * Packages the chart and returns the package's path.
 * @throws Error with helm's output when `helm package` fails.
 */
export async function packageChart(options: PackageChartOptions): Promise<string> {
  const work = await mkdtemp(path.join(tmpdir(), "gmsa-release-chart-"));
  try {
    const chart = path.join(work, "gmsa-webhooks");
    await cp(CHART_DIR, chart, { recursive: true });
    if (options.image !== undefined) await setImageDefaults(path.join(chart, "values.yaml"), options.image);
    await dateFiles(chart);
    const args = [
      "package",
      chart,
      "--version",
      options.version,
      "--app-version",
      options.version,
      "--destination",
      options.outDir,
    ];
    const helm = await createHelmRunner(options.helm);
    const packaged = await helm.run(args).finally(() => helm.close());
    if (packaged.code !== 0) throw new Error(`helm package failed: ${packaged.stderr}`);
    return path.join(options.outDir, `gmsa-webhooks-${options.version}.tgz`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
