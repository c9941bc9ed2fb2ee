/**
 * `npm test`: lint, type-check, then every vitest tier (unit, worker, e2e), and a closing
 * `N passed, N failed` line that counts each check and each test. Exits non-zero when anything failed.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

interface Tally {
  passed: number;
  failed: number;
  skipped: number;
}

const tiers = ["unit", "worker", "e2e"] as const;
const only = process.argv.slice(2);

function run(command: string, args: string[]): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: "inherit" });
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

async function vitestTier(tier: string, dir: string, tally: Tally): Promise<void> {
  console.log(`\n=== vitest ${tier}`);
  const out = join(dir, `${tier}.json`);
  const code = await run("vitest", ["run", "--config", `test/${tier}/vitest.config.ts`, "--reporter=default", "--reporter=json", `--outputFile=${out}`]);
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
  for (const tier of tiers) if (only.length === 0 || only.includes(tier)) await vitestTier(tier, dir, tally);
} finally {
  await rm(dir, { recursive: true, force: true });
}
console.log(`\n${tally.passed} passed, ${tally.failed} failed${tally.skipped > 0 ? `, ${tally.skipped} skipped` : ""}`);
process.exitCode = tally.failed === 0 ? 0 : 1;
