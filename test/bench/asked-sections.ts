/** The sections run only when named (`npm run bench -- rollout growth`, H and I) on one local cluster. */
import { startBenchCluster } from "./bench-cluster.ts";
import { benchGrowth, type GrowthStep } from "./growth.ts";
import { GROWTH_STEPS, printGrowth } from "./growth-plan.ts";
import { startPodCreateFloor } from "./pod-create.ts";
import { stopAfter } from "./measured-target.ts";
import { RAISED_LIMITER } from "./reference.ts";
import { benchRollout, type RolloutRun } from "./rollout.ts";
import { printRollout } from "./rollout-verdict.ts";

export const ASKED_SECTIONS = ["rollout", "growth"] as const;

export interface AskedSectionsOptions {
  /** Small counts, to check the harness. */
  quick: boolean;
  /** GMSA_REF_BIN: the Go reference beside ours in the rollout. */
  referenceBin: string | undefined;
  log: (line: string) => void;
}

/** The reference's chart's defaults (charts/gmsa values: qps 30, burst 50), then raised as elsewhere in the bench. */
const LIMITERS = [{ qps: 30, burst: 50 }, RAISED_LIMITER];

/** Runs the sections named in `asked` and prints their tables. @throws Error naming an unknown section. */
export async function runAskedSections(asked: readonly string[], options: AskedSectionsOptions): Promise<number> {
  const unknown = asked.filter((name) => !(ASKED_SECTIONS as readonly string[]).includes(name));
  if (unknown.length > 0)
    throw new Error(
      `unknown bench section ${unknown.join(", ")}: the sections run by name are ${ASKED_SECTIONS.join(", ")}`,
    );
  const { log } = options;
  let runs: RolloutRun[] = [];
  let steps: GrowthStep[] = [];
  // stopProcess (infra/local/processes.ts) awaits the exit of a child it unref'd: a server that needs SIGKILL would
  // leave nothing to keep the event loop alive until its exit event, and Node would quit mid-run.
  const keepAlive = setInterval(() => undefined, 1000);
  log("starting the local cluster");
  const bench = await startBenchCluster(log);
  try {
    if (asked.includes("rollout")) {
      log("H: rollout through kube-apiserver");
      runs = await stopAfter(await startPodCreateFloor(bench.cluster), (floor) =>
        benchRollout(bench.cluster, {
          floor,
          ...(options.referenceBin === undefined ? {} : { referenceBin: options.referenceBin }),
          limiters: LIMITERS,
          ...(options.quick ? { pods: 100 } : {}),
          log,
        }),
      );
    }
    if (asked.includes("growth")) {
      log("I: cost as work grows");
      steps = await benchGrowth(bench.cluster, {
        steps: options.quick ? GROWTH_STEPS.slice(0, 2) : GROWTH_STEPS,
        reviewsPerStep: options.quick ? 2000 : 20_000,
        log,
      });
    }
  } finally {
    await bench.stop();
    clearInterval(keepAlive);
  }
  printRollout(runs);
  if (asked.includes("rollout") && options.referenceBin === undefined)
    console.log("\nThe Go reference not run: GMSA_REF_BIN unset.");
  printGrowth(steps);
  return (
    runs.reduce(
      (sum, run) =>
        sum +
        run.phases.reduce((s, p) => s + p.verdicts.wrong + (run.reference ? 0 : p.verdicts.error) + p.floorErrors, 0),
      0,
    ) + steps.reduce((sum, step) => sum + step.errors, 0)
  );
}
