/**
 * `npm test`: lint, type-check, then every vitest tier (unit, worker, e2e on the newest pinned Kubernetes,
 * e2e-floor: the files that touch version-dependent API server features on the oldest), and a closing
 * `N passed, N failed` line that counts each check and each test. Exits non-zero when anything failed.
 * `npm test -- e2e-floor` (or any tier names) runs only those tiers.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { floorKubeRelease } from "../infra/local/kube-versions.ts";

interface Tally {
  passed: number;
  failed: number;
  skipped: number;
}

interface Tier {
  name: string;
  config: string;
  /** Test files to run; default: the config's whole `include`. */
  files?: string[];
  env?: Record<string, string>;
}

/**
 * The e2e files whose subject changed across the supported Kubernetes versions: webhook registration and
 * `matchConditions`, the ValidatingAdmissionPolicy companion, the JWT authenticator, ephemeral containers, and
 * webhooks called by service reference through a real node (helm-in-cluster.test.ts, whose kubelet, scheduler and
 * controller-manager are built from the same release as the API server). A test a version cannot run is named
 * "needs Kubernetes >= 1.xx" and counted as skipped.
 */
const FLOOR_FILES = [
  "test/e2e/webhook-config.test.ts",
  "test/e2e/policy.test.ts",
  "test/e2e/worker-jwt.test.ts",
  "test/e2e/authorization-modes.test.ts",
  "test/e2e/helm-in-cluster.test.ts",
];

const tiers: Tier[] = [
  { name: "unit", config: "test/unit/vitest.config.ts" },
  { name: "worker", config: "test/worker/vitest.config.ts" },
  { name: "e2e", config: "test/e2e/vitest.config.ts" },
  { name: "e2e-floor", config: "test/e2e/vitest.config.ts", files: FLOOR_FILES, env: { KUBE_VERSION: floorKubeRelease().version } },
];
const only = process.argv.slice(2);

function run(command: string, args: string[], env: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: "inherit", env: { ...process.env, ...env } });
    child.on("error", () => resolve(127));
    child.on("exit", (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
}

async function check(name: string, command: string, args: string[], tally: Tally): Promise<void> {
  console.log(`\n=== ${name}`);
  const code = await run(command, args);
  if (code === 0) tally.passed++;
  else tally.failed++;
  console.log(`=== ${name}: ${code === 0 ? "passed" : `failed (exit ${code})`}`);
}

async function vitestTier(tier: Tier, dir: string, tally: Tally): Promise<void> {
  console.log(`\n=== vitest ${tier.name}${tier.env?.KUBE_VERSION ? ` (Kubernetes ${tier.env.KUBE_VERSION})` : ""}`);
  const out = join(dir, `${tier.name}.json`);
  const args = ["run", "--config", tier.config, "--reporter=default", "--reporter=json", `--outputFile=${out}`, ...(tier.files ?? [])];
  const code = await run("vitest", args, tier.env);
  try {
    const report = JSON.parse(await readFile(out, "utf8")) as { numPassedTests: number; numFailedTests: number; numPendingTests: number; numTotalTests: number };
    tally.passed += report.numPassedTests;
    tally.failed += report.numFailedTests;
    tally.skipped += report.numPendingTests;
    // A suite that fails to load reports no failed test but a non-zero exit: count it.
    if (code !== 0 && report.numFailedTests === 0) tally.failed++;
    if (report.numTotalTests === 0) tally.failed++;
  } catch {
    tally.failed++;
  }
}

const tally: Tally = { passed: 0, failed: 0, skipped: 0 };
const dir = await mkdtemp(join(tmpdir(), "gmsa-test-"));
try {
  if (only.length === 0) {
    await check("lint", "eslint", ["."], tally);
    await check("typecheck", "npm", ["run", "--silent", "typecheck"], tally);
  }
  for (const tier of tiers) if (only.length === 0 || only.includes(tier.name)) await vitestTier(tier, dir, tally);
} finally {
  await rm(dir, { recursive: true, force: true });
}
console.log(`\n${tally.passed} passed, ${tally.failed} failed${tally.skipped > 0 ? `, ${tally.skipped} skipped` : ""}`);
process.exitCode = tally.failed === 0 ? 0 : 1;
