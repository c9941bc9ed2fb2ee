/**
 * A fresh clone, `npm ci`, `npm test` (`CI=true`) and a first `npm run dev -- --check`, timed with the load around
 * each. Cold by default (empty Go caches, no `.cache`); `--warm` uses the machine's; `--remove-debian-packages` first
 * purges what the project installs. `node test/bench/cold-path.ts [--warm] [--remove-debian-packages] [--keep]`.
 */
import { spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, symlink } from "node:fs/promises";
import { cpus, tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { WRANGLER_OFFLINE_ENV } from "../../infra/build/cloudflare/bundle-size.ts";
import { REPO_ROOT } from "../../infra/build/repo-root.ts";
import { loadAvg } from "./table.ts";

/** What the project's own scripts install from Debian (test/prepare.ts, infra/local/node-binaries.ts). */
const PROJECT_DEBIAN_PACKAGES = [
  "awscli",
  "python3-prometheus-client",
  "docker-registry",
  "skopeo",
  "runc",
  "iptables",
];

interface Phase {
  name: string;
  seconds: number;
  loadBefore: string;
  loadAfter: string;
  code: number;
}

function log(message: string): void {
  process.stderr.write(`[cold-path] ${message}\n`);
}

/** Runs `command` with `args` in `cwd`, its output appended to `<logName>.log`, and times it as a phase. */
async function timed(name: string, logName: string, cwd: string, command: string, args: string[]): Promise<void> {
  const logFile = logFileOf(logName);
  const loadBefore = loadAvg();
  log(`${name}: ${command} ${args.join(" ")} (load ${loadBefore})`);
  const started = Date.now();
  const code = await new Promise<number>((resolve) => {
    const out = createWriteStream(logFile, { flags: "a" });
    const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.pipe(out, { end: false });
    child.stderr.pipe(out, { end: false });
    child.once("error", () => out.end(() => resolve(127)));
    child.once("close", (code) => out.end(() => resolve(code ?? 1)));
  });
  const phase = { name, seconds: Math.round((Date.now() - started) / 1000), loadBefore, loadAfter: loadAvg(), code };
  log(`${name}: exit ${code} in ${phase.seconds} s (load ${phase.loadAfter})`);
  phases.push(phase);
}

const { values } = parseArgs({
  options: {
    warm: { type: "boolean", default: false },
    "remove-debian-packages": { type: "boolean", default: false },
    keep: { type: "boolean", default: false },
  },
});

const work = await mkdtemp(path.join(tmpdir(), "gmsa-cold-path-"));
const clone = path.join(work, "repo");
const env: NodeJS.ProcessEnv = {
  ...process.env,
  CI: "true",
  ...WRANGLER_OFFLINE_ENV,
};
// npm's own variables and PATH entries from an `npm run` that may have started us point into this checkout.
for (const name of Object.keys(env)) if (name.startsWith("npm_")) delete env[name];
env.PATH = (env.PATH ?? "")
  .split(path.delimiter)
  .filter((dir) => !dir.startsWith(REPO_ROOT))
  .join(path.delimiter);
if (!values.warm) {
  env.GOCACHE = path.join(work, "go-build");
  env.GOMODCACHE = path.join(work, "go-mod");
  await mkdir(env.GOCACHE);
  await mkdir(env.GOMODCACHE);
}

const phases: Phase[] = [];
const logFileOf = (name: string): string => path.join(work, `${name}.log`);
if (values["remove-debian-packages"]) {
  await timed("remove Debian packages", "apt", work, "apt-get", ["purge", "-y", "-q", ...PROJECT_DEBIAN_PACKAGES]);
  await timed("apt autoremove", "apt", work, "apt-get", ["autoremove", "--purge", "-y", "-q"]);
}
await timed("git clone", "clone", work, "git", ["clone", "--quiet", "--no-local", REPO_ROOT, clone]);
if (values.warm) await symlink(path.join(REPO_ROOT, ".cache"), path.join(clone, ".cache"));
await timed("npm ci", "npm-ci", clone, "npm", ["ci", "--no-audit", "--no-fund"]);
await timed("npm test", "npm-test", clone, "npm", ["test"]);
await timed("npm run dev -- --check", "dev", clone, "npm", ["run", "dev", "--", "--check"]);

const testLog = await readFile(logFileOf("npm-test"), "utf8");
const own = testLog
  .split("\n")
  .filter((line) => /^\[prepare\]|^=== (vitest|lint|typecheck|all)|^\d+ passed, \d+ failed/.test(line));
const kind = values.warm
  ? "warm (the machine's Go caches, this checkout's .cache)"
  : "cold (empty GOCACHE and GOMODCACHE, no .cache)";
const total = phases.reduce((sum, phase) => sum + phase.seconds, 0);
console.log(`\n### ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, ${kind}, ${cpus().length} cores`);
console.log(`\n| phase | time | load before | load after | exit |\n| --- | ---: | --- | --- | ---: |`);
for (const phase of phases)
  console.log(`| ${phase.name} | ${phase.seconds} s | ${phase.loadBefore} | ${phase.loadAfter} | ${phase.code} |`);
console.log(`| all | ${total} s (${(total / 60).toFixed(1)} min) | | | |`);
console.log(`\nWhat npm test printed of its phases:\n\n\`\`\`\n${own.join("\n")}\n\`\`\``);

const failed = phases.some((phase) => phase.code !== 0);
if (failed || values.keep) log(`logs kept in ${work}`);
else await rm(work, { recursive: true, force: true });
process.exitCode = failed ? 1 : 0;
