/**
 * Section A, the Lambda cold start: fresh node processes import the bundle and answer one authorize review against a
 * local API stand-in, timed inside the child: Node's own boot is done before Lambda loads a handler.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import type { NodeTarget } from "../../infra/build/node/bundle-function.ts";
import type { AdmissionReviewResponse } from "../../shared/admission/review.ts";
import { startKubeServer } from "../support/kube-server.ts";
import { functionUrlEvent } from "../support/lambda-events.ts";
import { createTestPki } from "../support/test-pki.ts";
import { benchCredSpec, benchCredSpecName, buildBenchPod, reviewBody } from "./bench-pods.ts";
import { summarizeEach, type Summary } from "./percentiles.ts";
import { p50Max, printTable } from "./table.ts";

const run = promisify(execFile);
const CALLER_TOKEN = "bench-cold-start-caller-token-0123456789";

/** Cold-start figures in milliseconds over several fresh processes. */
export interface ColdStart {
  target: NodeTarget;
  /** How the process ran: as deployed, with source maps, or with Node's fetch implementation loaded before the timer. */
  setup: ColdStartSetup;
  importMs: Summary;
  firstAnswerMs: Summary;
  totalMs: Summary;
  /**
   * CPU time (user + system, all threads) of import and first answer together: on a shared machine, less noisy
   * than wall time, which waits for a core.
   */
  totalCpuMs: Summary;
}

type ColdStartFigure = Exclude<keyof ColdStart, "target" | "setup">;

/** What one child process prints. */
type ColdStartRun = Record<ColdStartFigure, number> & { result: { statusCode: number; body: string } };

/** The child process: import, one event, print the times. */
function childScript(bundle: string, event: unknown): string {
  return [
    "const cpuMs = () => { const { user, system } = process.cpuUsage(); return (user + system) / 1000; };",
    "const started = performance.now();",
    "const startedCpu = cpuMs();",
    `const { handler } = await import(${JSON.stringify(pathToFileURL(bundle).href)});`,
    "const imported = performance.now();",
    `const result = await handler(${JSON.stringify(event)});`,
    "const answered = performance.now();",
    "const answeredCpu = cpuMs();",
    "process.stdout.write(JSON.stringify({",
    "  importMs: imported - started, firstAnswerMs: answered - imported, totalMs: answered - started,",
    "  totalCpuMs: answeredCpu - startedCpu, result,",
    "}));",
    "",
  ].join("\n");
}

/**
 * `as deployed` as infra/deploy/aws/README.md deploys it. `fetch preloaded` is informational, never a budget: its
 * difference to `as deployed` is what loading Node's fetch (undici) costs, which Hono and `node:http` always pay.
 */
export type ColdStartSetup = "as deployed" | "source maps on" | "fetch preloaded";

const SETUP_ARGS: Record<ColdStartSetup, readonly string[]> = {
  "as deployed": [],
  // NODE_OPTIONS=--enable-source-maps, for debugging (infra/deploy/aws/README.md).
  "source maps on": ["--enable-source-maps"],
  "fetch preloaded": ["--import=data:text/javascript,globalThis.Request"],
};

/** A kubeconfig of one context, its `cluster` and `user` as YAML flow mappings. */
export function oneContextKubeconfig(cluster: string, user: string): string {
  return [
    "apiVersion: v1",
    "kind: Config",
    `clusters: [{name: c, cluster: ${cluster}}]`,
    `users: [{name: gmsa, user: ${user}}]`,
    "contexts: [{name: c, context: {cluster: c, user: gmsa}}]",
    "current-context: c",
    "",
  ].join("\n");
}

/** Runs the bundle `runs` times, each in a fresh process. @throws when an answer is not the expected allow. */
async function measureLambdaColdStart(bundle: string, runs: number, setup: ColdStartSetup): Promise<ColdStart> {
  const pki = await createTestPki();
  const name = benchCredSpecName(0);
  const credspec = benchCredSpec(0);
  const server = await startKubeServer({ ...pki.server, credspecs: { [name]: credspec } });
  const dir = await mkdtemp(path.join(tmpdir(), "gmsa-bench-cold-"));
  try {
    const kubeconfig = path.join(dir, "kubeconfig.yaml");
    // The stand-in's URL and CA and a static token, as infra/deploy/aws/kubeconfig.example.yaml has them.
    const ca = Buffer.from(pki.caPem).toString("base64");
    const cluster = `{server: "${server.url}", certificate-authority-data: ${ca}}`;
    await writeFile(kubeconfig, oneContextKubeconfig(cluster, "{token: bench-cold-start-kube-token}"));
    const pod = buildBenchPod(1, new Map([[name, JSON.stringify(credspec)]]));
    const event = functionUrlEvent({
      method: "POST",
      path: "/authorize?timeout=10s",
      headers: { "content-type": "application/json", authorization: `Bearer ${CALLER_TOKEN}` },
      body: reviewBody(pod),
    });
    const script = path.join(dir, "cold-start.mjs");
    await writeFile(script, childScript(bundle, event));
    const env = {
      PATH: process.env["PATH"],
      KUBECONFIG: kubeconfig,
      CALLER_AUTH: "bearer",
      CALLER_AUTH_TOKENS: CALLER_TOKEN,
      LOG_LEVEL: "warn",
    };
    const figures: Record<ColdStartFigure, number>[] = [];
    for (let i = 0; i < runs; i++) {
      const { stdout } = await run(process.execPath, [...SETUP_ARGS[setup], script], { cwd: dir, env });
      const { result, ...figuresOfRun } = JSON.parse(stdout) as ColdStartRun;
      const review = JSON.parse(result.body) as Partial<AdmissionReviewResponse>;
      if (result.statusCode !== 200 || review.response?.allowed !== true) {
        throw new Error(
          `the Lambda bundle's first answer was not an allow: ${result.statusCode} ${result.body.slice(0, 300)}`,
        );
      }
      figures.push(figuresOfRun);
    }
    const calls = server.requests.length / runs;
    if (calls !== 2)
      throw new Error(`expected 2 API calls per cold start (credspec read, access review), saw ${calls}`);
    const keys = ["importMs", "firstAnswerMs", "totalMs", "totalCpuMs"] as const;
    return { target: "lambda", setup, ...summarizeEach(figures, keys) };
  } finally {
    await server.close();
    await pki.cleanup();
    await rm(dir, { recursive: true, force: true });
  }
}

export async function measureLambdaColdStarts(bundle: string, runs: number): Promise<ColdStart[]> {
  const results: ColdStart[] = [];
  for (const setup of Object.keys(SETUP_ARGS) as ColdStartSetup[])
    results.push(await measureLambdaColdStart(bundle, runs, setup));
  return results;
}

export function printColdStarts(results: readonly ColdStart[], runs: number): void {
  const cell = (summary: Summary) => p50Max(summary, 1);
  printTable(
    `A. Lambda cold start: a fresh node process imports the bundle and answers one authorize review (ms, median and max of ${runs})`,
    ["setup", "import", "first answer (2 API calls)", "import + first answer", "CPU, import + first answer"],
    results.map((r) => [r.setup, cell(r.importMs), cell(r.firstAnswerMs), cell(r.totalMs), cell(r.totalCpuMs)]),
    "The API server is a local HTTPS stand-in (credspec read, access review); Node's own boot is not counted. " +
      "CPU: user+system of all threads, less noisy than wall time on a shared machine. " +
      "`fetch preloaded` loads Node's fetch implementation before the timer: the difference is what loading it costs.",
  );
}
