/**
 * `npm run bench` (docs/development.md, Benchmark): one table per section, then the checks and the budget table of
 * docs/performance.md (reported, not asserted). Exits 0 unless a step threw or an answer was not the expected one.
 *
 *   A. in-process cost per review, bundles, Worker start-up, the Lambda cold start, files a warm review crosses
 *   B-F, per runtime on the local cluster: reviews/s and latency, API calls per review, exec plugin runs, Node
 *      server memory, what the webhooks add to a pod create
 *   G. the production Node server's memory and CPU per review; the reviews-per-second budget's trials
 *   H (`rollout`) and I (`growth`) run only when named, instead of A to G (asked-sections.ts).
 *
 * With `GMSA_REF_BIN` the Go reference (reference.ts) runs beside ours in B, F, G and H.
 */
import "./quiet-env.ts";
import { cpus, tmpdir, totalmem } from "node:os";
import { mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import type { FunctionsRuntime } from "../../infra/local/index.ts";
import { startBenchCluster } from "./bench-cluster.ts";
import { writeChart } from "./chart.ts";
import { measureLambdaColdStarts, printColdStarts, type ColdStart } from "./cold-start.ts";
import { measureInProcess } from "./in-process.ts";
import { measureNodeBundle, printNodeBundles, type NodeBundleSize } from "./node-bundle.ts";
import { podCreateLoads, startPodCreateFloor } from "./pod-create.ts";
import { printPodCreate, type LabelledPodCreates } from "./pod-create-report.ts";
import {
  printBundles,
  printCalls,
  printExecRuns,
  printInProcess,
  printMemory,
  printThroughput,
  printWorkerStartup,
} from "./report.ts";
import { benchRuntime, type RuntimeFigures } from "./runtime-phase.ts";
import { judgeBudgets, LAMBDA_COLD_STARTS, printBudgets } from "./budgets.ts";
import { judgeChecks, phaseErrors, printChecks, referenceErrors } from "./checks.ts";
import { chartFiguresOf } from "./figures.ts";
import { countSourceLines } from "./source-lines.ts";
import { loadAvg } from "./table.ts";
import { measureReviewFiles } from "./review-files.ts";
import { measureReviewTrials, printReviewTrials, trialErrors, type ReviewTrials } from "./review-trials.ts";
import {
  buildReviewBodies,
  NODE_SERVER_NAME,
  startFloorTargets,
  startNodeTargets,
  stopAfter,
} from "./measured-target.ts";
import { REFERENCE_SERVER_NAME, startReference } from "./reference.ts";
import { benchReference, printReference, type ReferenceFigures } from "./reference-phase.ts";
import { measureFrugal, printFrugal, type FrugalFigures } from "./frugal.ts";
import { measureWorkerBundle, measureWorkerStartup, type BundleSize, type WorkerStartup } from "./worker-bundle.ts";
import { FUNCTION_NAMES } from "../../shared/config/index.ts";
import { runAskedSections } from "./asked-sections.ts";

const quick = process.argv.includes("--quick");
const withCluster = !process.argv.includes("--no-cluster");
const referenceBin = process.env["GMSA_REF_BIN"] || undefined;
/** A setting's `--quick` value, else its full one. */
const pick = <T>(quickValue: T, full: T): T => (quick ? quickValue : full);
const SETTINGS = {
  rounds: pick(2, 5),
  iterations: pick(500, 4000),
  warmup: pick(200, 2000),
  startups: pick(1, 5),
  concurrencies: pick([1, 16], [1, 16, 128]),
  maxRequests: pick(200, 2000),
  maxDurationMs: pick(1000, 3000),
  podCreateRequests: pick(50, 1000),
  podCreateRounds: 3,
  coldStarts: pick(2, LAMBDA_COLD_STARTS),
  frugalReviews: pick(2000, 20_000),
  trialWarmupMs: pick(500, 10_000),
  trialRequests: pick(200, 1_000_000),
  trialMs: pick(1000, 3000),
};
/**
 * Exec-plugin tokens are advertised for 20 s (the real ones last 10 minutes), so they are refreshed
 * during the Node phase under load: one run per 15 s at most (20 s less the 5 s refresh skew).
 */
const TOKEN_LIFETIME_SECONDS = 20;
const RUNTIMES: readonly FunctionsRuntime[] = ["node", "worker"];

const began = performance.now();
const startedAt = new Date().toISOString();
const log = (line: string) =>
  console.error(`[bench ${((performance.now() - began) / 1000).toFixed(0).padStart(3)} s] ${line}`);
const printTotal = () =>
  console.log(`\nTotal ${((performance.now() - began) / 1000).toFixed(0)} s; load average at end ${loadAvg()}.`);

console.log(`# npm run bench${process.argv.slice(2).length > 0 ? ` -- ${process.argv.slice(2).join(" ")}` : ""}`);
console.log(
  `\n${startedAt}, Node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? "?"}), ` +
    `${(totalmem() / 2 ** 30).toFixed(0)} GiB, load average at start ${loadAvg()}`,
);

const asked = process.argv.slice(2).filter((arg) => !arg.startsWith("-"));
if (asked.length > 0) {
  const unexpected = await runAskedSections(asked, { quick, referenceBin, log });
  printTotal();
  if (unexpected > 0)
    console.error(`\n${unexpected} decisions were wrong or creates and reviews failed (see the tables)`);
  process.exit(unexpected > 0 ? 1 : 0);
}

log("A: in-process reviews");
const inProcess = await measureInProcess(SETTINGS);
printInProcess(inProcess, SETTINGS.rounds, SETTINGS.iterations);

log("A: Worker bundles and start-up");
const bundles: BundleSize[] = [];
const startups: WorkerStartup[] = [];
const nodeBundles: NodeBundleSize[] = [];
const coldStarts: ColdStart[] = [];
const buildDir = await mkdtemp(join(tmpdir(), "gmsa-bench-build-"));
try {
  for (const fn of FUNCTION_NAMES) {
    const bundle = await measureWorkerBundle(buildDir, fn);
    bundles.push(bundle);
    startups.push(await measureWorkerStartup(fn, bundle.scriptPath, SETTINGS.startups));
  }
  printBundles(bundles);
  printWorkerStartup(startups, SETTINGS.startups);
  log("A: Node-based bundles and the Lambda cold start");
  for (const target of ["server", "lambda", "azure"] as const)
    nodeBundles.push(await measureNodeBundle(buildDir, target));
  coldStarts.push(...(await measureLambdaColdStarts(join(buildDir, "lambda", "index.mjs"), SETTINGS.coldStarts)));
} finally {
  await rm(buildDir, { recursive: true, force: true });
}
printNodeBundles(nodeBundles);
printColdStarts(coldStarts, SETTINGS.coldStarts);

log("A: files a warm review crosses");
const reviewFiles = await measureReviewFiles();

const phases: RuntimeFigures[] = [];
let frugal: FrugalFigures[] = [];
let reference: ReferenceFigures | undefined;
let reviewTrials: ReviewTrials[] = [];
if (withCluster) {
  log("starting the local cluster");
  await stopAfter(await startBenchCluster(log), async (bench) => {
    // Section F's floor runs through the phases: each webhook pair is measured against it, their creates alternating.
    await stopAfter(await startPodCreateFloor(bench.cluster), async (podCreateFloor) => {
      // Sections B and F's settings: SETTINGS holds their counts under the names the phases take.
      const phaseOptions = { ...SETTINGS, podCreateMaxDurationMs: 10_000, podCreateFloor, log };
      for (const runtime of RUNTIMES) {
        log(`B-F: ${runtime} runtime`);
        phases.push(
          await benchRuntime(bench, runtime, { ...phaseOptions, tokenLifetimeSeconds: TOKEN_LIFETIME_SECONDS }),
        );
      }
      log("G: server memory and CPU per review (our production bundle and the do-nothing floor, fresh processes)");
      const node = await startNodeTargets(bench.cluster);
      // Started here so that its idle memory is read fresh, as ours.
      const ref =
        referenceBin === undefined
          ? undefined
          : await startReference(bench.cluster, referenceBin).catch(async (error: unknown) => {
              await node.stop();
              throw error;
            });
      try {
        const bodies = buildReviewBodies(bench.credspecs);
        const credspec: unknown = bench.credspecs.values().next().value;
        frugal = await stopAfter(await startFloorTargets(bench.cluster, credspec), (floorServer) =>
          measureFrugal([...node.targets, ...(ref?.targets ?? []), ...floorServer.targets], {
            bodies,
            reviewsPerRound: SETTINGS.frugalReviews,
            log,
          }),
        );
        log(
          `B: the reviews-per-second budget's trials (concurrency 16), ${ref === undefined ? "ours alone" : "ours and Go's alternating"}`,
        );
        reviewTrials = await measureReviewTrials(node.targets, ref?.targets, {
          bodies,
          maxRequests: SETTINGS.trialRequests,
          maxDurationMs: SETTINGS.trialMs,
          warmupMs: SETTINGS.trialWarmupMs,
          log,
        });
      } catch (error) {
        await ref?.stop();
        throw error;
      } finally {
        await node.stop();
      }
      if (ref !== undefined) {
        log("B, F: the windows-gmsa reference (GMSA_REF_BIN)");
        reference = await stopAfter(ref, () => benchReference(bench, ref, phaseOptions));
      }
    });
  });
  printThroughput(phases, SETTINGS.maxRequests, SETTINGS.maxDurationMs);
  printCalls(phases);
  printExecRuns(phases, TOKEN_LIFETIME_SECONDS);
  printMemory(phases);
  printPodCreate([
    ...phases.map((p): LabelledPodCreates => [`${p.runtime} functions`, p.podCreate]),
    ...(reference === undefined ? [] : [[REFERENCE_SERVER_NAME, reference.podCreate] as const]),
  ]);
  printFrugal(frugal, SETTINGS.frugalReviews);
  if (reference !== undefined) printReference(phases, reference);
  printReviewTrials(reviewTrials, { ours: NODE_SERVER_NAME, go: REFERENCE_SERVER_NAME });
}

const figures = {
  bundles,
  coldStarts,
  phases,
  frugal,
  reference,
  reviewTrials,
  reviewFiles,
  sourceLines: await countSourceLines("functions", "shared"),
  cliSourceLines: await countSourceLines("cli"),
  testLines: await countSourceLines("test"),
};
if (withCluster && !quick) {
  const chart = new URL("../../docs/performance.svg", import.meta.url);
  await writeChart(chart, chartFiguresOf({ ...figures, startedAt }));
  console.log("\nChart: docs/performance.svg");
}
printChecks(judgeChecks(phases, reference));
printBudgets(
  judgeBudgets(figures),
  `Figures from the bench run of ${startedAt.slice(0, 16).replace("T", " ")} UTC${quick ? " (--quick: small counts, not for the record)" : ""}` +
    `${reference !== undefined ? " with the Go reference (`GMSA_REF_BIN`)" : referenceBin === undefined ? ", without the Go reference (GMSA_REF_BIN unset)" : ", the Go reference not run (--no-cluster)"}, ` +
    `on a ${cpus().length}-core machine where the load generator, the functions, kube-apiserver and etcd share every core. ` +
    "Pairs are expand / authorize.",
);
printTotal();

const unexpected =
  phases.reduce((sum, p) => sum + phaseErrors(p), 0) +
  frugal.reduce((sum, f) => sum + f.errors, 0) +
  reviewTrials.reduce((sum, t) => sum + trialErrors(t), 0) +
  (reference === undefined ? 0 : referenceErrors(reference));
if (unexpected > 0) {
  const first = phases
    .flatMap((p) => [...p.cells.map((c) => c.load), ...podCreateLoads(p.podCreate)])
    .find((l) => l.firstError !== undefined);
  console.error(
    `\n${unexpected} answers were not the expected ones; the first: ${first?.firstError ?? frugal.find((f) => f.firstError !== undefined)?.firstError ?? "?"}`,
  );
  process.exitCode = 1;
}
