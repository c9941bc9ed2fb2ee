/**
 * `npm test`: lint, type-check, then every vitest tier of test/tiers.ts (unit, tools, worker, e2e on the newest
 * pinned Kubernetes, e2e-floor on the oldest), and a closing `N passed, N failed` line that counts each check and
 * each test. Exits non-zero when anything failed.
 *
 * What the selected tiers need (Go builds, Debian packages, the image: test/prepare.ts) starts building in the
 * background at once, so it overlaps lint, the type-check and the tiers that need less; each tier waits for its own
 * steps before vitest starts, and a step that cannot be done fails its tier once, naming the command to run by hand.
 * Two lanes run side by side: the cluster tiers (e2e, then e2e-floor) and the rest (lint, type-check, unit, tools,
 * worker), the second's output printed a command at a time.
 *
 * `npm test -- tools e2e-floor` runs those tiers; `npm test -- test/e2e/policy.test.ts` runs that file in its tier
 * and prepares only what it needs. Either way lint and the type-check are left out. `npm test -- --prepare-only
 * [tier|file ...]` prepares what those need and runs nothing.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { startPreparing, waitFor } from "./prepare.ts";
import { filesOf, selectTiers, stepsOf, type SelectedTier, type Tier } from "./tiers.ts";

interface Tally {
  passed: number;
  failed: number;
  skipped: number;
}

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

async function check(name: string, command: string, args: string[], tally: Tally, buffer: boolean): Promise<void> {
  const code = await run(command, args, {}, buffer);
  if (code === 0) tally.passed++;
  else tally.failed++;
  console.log(`=== ${name}: ${code === 0 ? "passed" : `failed (exit ${code})`} (${elapsed()} since the start)`);
}

async function vitestTier(
  tier: Tier,
  files: string[] | undefined,
  dir: string,
  tally: Tally,
  buffer: boolean,
): Promise<void> {
  const out = join(dir, `${tier.name}.json`);
  const args = [
    "run",
    "--config",
    tier.config,
    "--reporter=default",
    "--reporter=json",
    `--outputFile=${out}`,
    ...(files ?? filesOf(tier)),
  ];
  const code = await run("vitest", args, tier.env, buffer);
  try {
    const report = JSON.parse(await readFile(out, "utf8")) as {
      numPassedTests: number;
      numFailedTests: number;
      numPendingTests: number;
      numTotalTests: number;
    };
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

/** The tiers and files the arguments select: tier names, or test files (each run in the tier of its folder). */
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
  await vitestTier(tier, files, dir, tally, buffer);
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
const tally: Tally = { passed: 0, failed: 0, skipped: 0 };
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
        await check("lint", "npm", ["run", "--silent", "lint"], tally, buffer);
        await check("typecheck", "npm", ["run", "--silent", "typecheck"], tally, buffer);
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
