/**
 * Prepares what the selected tools-tier files need (test/tiers.ts) before any test's clock runs; `npm test` has
 * usually prepared it already, and then this is a stamp check. Test files get the prepared programs' paths with
 * `inject("helm")`, `inject("actionlint")`, `inject("image")` and `inject("awscli")` (empty when no selected file needs them).
 */
import type { TestProject } from "vitest/node";
import { ensureDebianAwsCli, type DebianAwsCli } from "../../infra/local/awscli.ts";
import { ensureHelm } from "../../infra/build/tools/go-build.ts";
import { ensureImage, type ImageInfo } from "../../infra/build/node/image.ts";
import { ensureActionlint } from "../../infra/build/release/actionlint.ts";
import { prepare, STEPS } from "../prepare.ts";
import { selectedFiles, tierNamed } from "../tiers.ts";

declare module "vitest" {
  export interface ProvidedContext {
    helm: string;
    actionlint: string;
    image: ImageInfo | null;
    awscli: DebianAwsCli | null;
  }
}

export default async function setup(project: TestProject): Promise<void> {
  const steps = tierNamed("tools").needs(await selectedFiles(project));
  await prepare(steps);
  project.provide("helm", steps.includes(STEPS.helm) ? await ensureHelm() : "");
  project.provide("actionlint", steps.includes(STEPS.actionlint) ? await ensureActionlint() : "");
  project.provide("image", steps.includes(STEPS.image) ? await ensureImage() : null);
  project.provide("awscli", steps.includes(STEPS.awscli) ? await ensureDebianAwsCli() : null);
}
