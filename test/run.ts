/**
 * `npm test`: lint, type-check, then every vitest tier of test/tiers.ts, and a closing `N passed, N failed` line that
 * counts each check and each test; exits non-zero when anything failed (docs/development.md, Tests).
 *
 * What the selected tiers need (test/prepare.ts) starts building at once, so it overlaps lint, the type-check and the
 * tiers that need less; each tier waits for its own steps, and a step that cannot be done fails its tier once.
 * `npm test -- <tier|file> ...` runs those without lint and the type-check; `--prepare-only` prepares and runs nothing.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import type { JsonTestResults } from "vitest/node";
import { startPreparing, waitFor } from "./prepare.ts";
import { filesOf, selectTiers, stepsOf, type SelectedTier } from "./tiers.ts";

const started = Date.now();
const elapsed = (): string => `${Math.round((Date.now() - started) / 1000)} s`;

/**
 * Runs a command. With `buffer`, its output is held and printed in one piece when it ends, so a lane that runs beside
 * another does not interleave its lines with it.
 */
function run(command: string, args: string[], env: Record<string, string> = {}, buffer = false): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      stdio: buffer ? ["ignore", "pipe", "pipe"] : "inherit",
      env: { ...process.env, ...env },
    });
    const chunks: Buffer[] = [];
    child.stdout?.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.stderr?.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.on("error", () => resolve(127));
    child.on("close", (code, signal) => {
      if (buffer) process.stdout.write(Buffer.concat(chunks));
      resolve(code ?? (signal ? 128 : 1));
    });
  });
}

async function check(name: string, command: string, args: string[], buffer: boolean): Promise<void> {
  const code = await run(command, args, {}, buffer);
  if (code === 0) tally.passed++;
  else tally.failed++;
  console.log(`=== ${name}: ${code === 0 ? "passed" : `failed (exit ${code})`} (${elapsed()} since the start)`);
}

/** Waits for what `tier` needs, then runs it; a tier whose steps failed counts one failure and does not run. */
async function runTier({ tier, files }: SelectedTier, buffer: boolean): Promise<void> {
  const label = `vitest ${tier.name}${tier.env?.KUBE_VERSION ? ` (Kubernetes ${tier.env.KUBE_VERSION})` : ""}`;
  const errors = await waitFor(preparing, stepsOf(tier, files ?? filesOf(tier)));
  if (errors.length > 0) {
    tally.failed++;
    console.log(
      `\n=== ${label}: not run, what it needs could not be prepared:\n${errors.map((error) => error.message).join("\n")}`,
    );
    return;
  }
  console.log(`\n=== ${label} starts (${elapsed()} since the start, load ${loadavg()[0]!.toFixed(2)})`);
  const before = Date.now();
  const out = join(dir, `${tier.name}.json`);
  const flags = ["run", "--config", tier.config, "--reporter=default", "--reporter=json", `--outputFile=${out}`];
  const code = await run("vitest", [...flags, ...(files ?? filesOf(tier))], tier.env, buffer);
  try {
    const report = JSON.parse(await readFile(out, "utf8")) as JsonTestResults;
    tally.passed += report.numPassedTests;
    tally.failed += report.numFailedTests;
    tally.skipped += report.numPendingTests;
    // A suite that fails to load reports no failed test but a non-zero exit: count it.
    if (code !== 0 && report.numFailedTests === 0) tally.failed++;
    if (report.numTotalTests === 0) tally.failed++;
  } catch {
    tally.failed++;
  }
  console.log(`=== ${label}: ${Math.round((Date.now() - before) / 1000)} s (${elapsed()} since the start)`);
}

const prepareOnly = process.argv[2] === "--prepare-only";
const args = process.argv.slice(prepareOnly ? 3 : 2);
let selected: SelectedTier[];
try {
  selected = selectTiers(args);
} catch (error) {
  console.error(`npm test: ${(error as Error).message}`);
  process.exit(2);
}
const tally = { passed: 0, failed: 0, skipped: 0 };
const steps = selected.flatMap(({ tier, files }) => stepsOf(tier, files ?? filesOf(tier)));
console.log(
  `=== preparing in the background: ${[...new Set(steps.map((step) => step.title))].join("; ") || "nothing"} (load ${loadavg()[0]!.toFixed(2)})`,
);
const preparing = startPreparing(steps, { started });
if (prepareOnly) {
  const errors = await waitFor(preparing, steps);
  for (const error of errors) console.error(error.message);
  process.exit(errors.length === 0 ? 0 : 1);
}
const dir = await mkdtemp(join(tmpdir(), "gmsa-test-"));
// Two lanes side by side: the cluster tiers (mostly waiting on their API servers, tokens and nodes) and everything
// else, whose output is held per command while a cluster tier prints.
const clusterLane = selected.filter(({ tier }) => tier.cluster);
const checksLane = selected.filter(({ tier }) => !tier.cluster);
const buffer = clusterLane.length > 0;
try {
  await Promise.all([
    (async () => {
      if (args.length === 0) {
        console.log("\n=== lint and typecheck start");
        await check("lint", "npm", ["run", "--silent", "lint"], buffer);
        await check("typecheck", "npm", ["run", "--silent", "typecheck"], buffer);
      }
      for (const tier of checksLane) await runTier(tier, buffer);
    })(),
    (async () => {
      for (const tier of clusterLane) await runTier(tier, false);
    })(),
  ]);
} finally {
  await rm(dir, { recursive: true, force: true });
}
console.log(
  `\n=== all in ${elapsed()}, load ${loadavg()
    .map((load) => load.toFixed(2))
    .join(" ")}`,
);
console.log(`\n${tally.passed} passed, ${tally.failed} failed${tally.skipped > 0 ? `, ${tally.skipped} skipped` : ""}`);
process.exitCode = tally.failed === 0 ? 0 : 1;
