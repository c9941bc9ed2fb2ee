/**
 * The test tiers, by what their files need rather than by folder name, and what each selected file needs prepared
 * (test/prepare.ts) before any test's clock runs: the table of docs/development.md, Tests.
 */
import { globSync } from "node:fs";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { floorKubeRelease } from "../infra/local/kube-versions.ts";
import { REPO_ROOT } from "../infra/build/repo-root.ts";
import { kubeStep, nodeStep, STEPS, type Step } from "./prepare.ts";

export type TierName = "unit" | "tools" | "worker" | "e2e" | "e2e-floor";

export interface Tier {
  name: TierName;
  config: string;
  /** The folder whose `*.test.ts` files are the tier's. */
  folder: string;
  /** Test files to run; default: every file of {@link folder}. */
  files?: string[];
  env?: Record<string, string>;
  /** Whether it runs its own API server (`npm test` runs these beside the others, one after another). */
  cluster?: boolean;
  /** What `files` need prepared, for the Kubernetes version of `env.KUBE_VERSION`. */
  needs(files: string[], kubeVersion?: string): Step[];
}

/** Tools-tier files that need more than openssl, jq and zip (every tools file gets those). */
const TOOLS_NEEDS: Record<string, Step[]> = {
  "test/tools/docs/install-guides.test.ts": [STEPS.awscli],
  "test/tools/shared/credentials/eks.test.ts": [STEPS.awscli],
  "test/tools/cli/doctor/webhooks.test.ts": [STEPS.helm],
  "test/tools/infra/release/workflow.test.ts": [STEPS.actionlint],
  "test/tools/infra/image.test.ts": [STEPS.image],
  "test/tools/functions/node/prometheus.test.ts": [STEPS.prometheusParser],
  "test/tools/infra/grafana-dashboard.test.ts": [STEPS.prometheusParser],
  "test/tools/functions/node/faults/answers.test.ts": [STEPS.prometheusParser],
  "test/tools/functions/node/faults/credentials.test.ts": [STEPS.prometheusParser],
  "test/tools/functions/node/faults/transport.test.ts": [STEPS.prometheusParser],
};

/** What an e2e file needs beyond the cluster: `node` is the local node of the tier's Kubernetes version. */
type E2eNeed = Step | "node";

/** The in-cluster stack (infra/local/in-cluster.ts): the node, Helm and the image. */
const IN_CLUSTER: E2eNeed[] = ["node", STEPS.helm, STEPS.image];

export const E2E_NEEDS: Record<string, E2eNeed[]> = {
  "test/e2e/availability.test.ts": IN_CLUSTER,
  "test/e2e/caller-rotation.test.ts": IN_CLUSTER,
  "test/e2e/dev.test.ts": IN_CLUSTER,
  "test/e2e/helm-in-cluster.test.ts": IN_CLUSTER,
  "test/e2e/helm-chart.test.ts": [STEPS.helm],
  "test/e2e/helm-external.test.ts": [STEPS.helm],
  "test/e2e/incumbent-crd.test.ts": [STEPS.helm],
  "test/e2e/migration.test.ts": [STEPS.helm],
  "test/e2e/release.test.ts": [STEPS.helm, STEPS.image, STEPS.registry, STEPS.shellTools],
};

/**
 * The e2e files whose subject changed across the supported Kubernetes versions (webhook registration and
 * `matchConditions`, the ValidatingAdmissionPolicy, the JWT authenticator, ephemeral containers, service references
 * through a real node). A test a version cannot run is named "needs Kubernetes >= 1.xx" and counted as skipped.
 */
export const FLOOR_FILES = [
  "test/e2e/webhook-config.test.ts",
  "test/e2e/policy.test.ts",
  "test/e2e/worker-jwt.test.ts",
  "test/e2e/authorization-modes.test.ts",
  "test/e2e/exec-attach.test.ts",
  "test/e2e/helm-in-cluster.test.ts",
];

function e2eNeeds(files: string[], kubeVersion?: string): Step[] {
  const extra = files.flatMap((file) => E2E_NEEDS[file] ?? []);
  const node = extra.includes("node") ? [nodeStep(kubeVersion)] : [];
  // The API server first: every file needs it; the node next, the longest build after it.
  return [kubeStep(kubeVersion), ...node, STEPS.prometheusParser, ...extra.filter((need) => need !== "node")];
}

export const TIERS: Tier[] = [
  { name: "unit", config: "test/unit/vitest.config.ts", folder: "test/unit", needs: () => [] },
  {
    name: "tools",
    config: "test/tools/vitest.config.ts",
    folder: "test/tools",
    needs: (files) => [STEPS.shellTools, ...files.flatMap((file) => TOOLS_NEEDS[file] ?? [])],
  },
  { name: "worker", config: "test/worker/vitest.config.ts", folder: "test/worker", needs: () => [] },
  { name: "e2e", config: "test/e2e/vitest.config.ts", folder: "test/e2e", cluster: true, needs: e2eNeeds },
  {
    name: "e2e-floor",
    config: "test/e2e/vitest.config.ts",
    folder: "test/e2e",
    files: FLOOR_FILES,
    cluster: true,
    env: { KUBE_VERSION: floorKubeRelease().version },
    needs: e2eNeeds,
  },
];

/** Every `*.test.ts` file below `folder`, repository-relative, sorted. */
export function testFiles(folder: string): string[] {
  return globSync(`${folder}/**/*.test.ts`, { cwd: REPO_ROOT }).sort();
}

/** The files `tier` runs: its own list, or every test file of its folder. */
export function filesOf(tier: Tier): string[] {
  return tier.files ?? testFiles(tier.folder);
}

/** The steps a tier's `files` need, for the Kubernetes version its environment names. */
export function stepsOf(tier: Tier, files: string[] = filesOf(tier)): Step[] {
  return tier.needs(files, tier.env?.KUBE_VERSION);
}

/**
 * The repository-relative files a vitest run selected (its file filters applied to the config's `include`), for a
 * global setup to prepare what they need. vitest keeps the filters on an internal field; without it, every file.
 */
export async function selectedFiles(project: TestProject): Promise<string[]> {
  const filters = (project.vitest as unknown as { filenamePattern?: string[] }).filenamePattern ?? [];
  const { testFiles: files } = await project.globTestFiles(filters);
  return files.map((file) => path.relative(REPO_ROOT, file)).sort();
}

/** The tier called `name`. */
export function tierNamed(name: TierName): Tier {
  return TIERS.find((tier) => tier.name === name)!;
}

/** A tier to run, with the files asked for (default: all of {@link filesOf}). */
export interface SelectedTier {
  tier: Tier;
  files?: string[];
}

/**
 * The tiers and files `npm test`'s arguments select: every tier for none; tier names; test files, each run in the
 * first tier of its folder (an e2e file in `e2e`: the floor is chosen by name).
 * @throws Error naming the arguments that are neither.
 */
export function selectTiers(args: string[]): SelectedTier[] {
  if (args.length === 0) return TIERS.map((tier) => ({ tier }));
  const tierOf = (file: string): Tier | undefined => TIERS.find((tier) => file.startsWith(`${tier.folder}/`));
  const unknown = args.filter((arg) => !TIERS.some((tier) => tier.name === arg) && tierOf(arg) === undefined);
  if (unknown.length > 0) {
    throw new Error(
      `not a tier or a test file of one: ${unknown.join(", ")} (tiers: ${TIERS.map((tier) => tier.name).join(", ")})`,
    );
  }
  return TIERS.flatMap((tier) => {
    if (args.includes(tier.name)) return [{ tier }];
    const files = args.filter((arg) => tierOf(arg) === tier);
    return files.length > 0 ? [{ tier, files }] : [];
  });
}
