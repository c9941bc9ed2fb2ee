/** The targets, judged from the figures: reported, never asserted. */
import type { ColdStart } from "./cold-start.ts";
import type { InProcessResult } from "./in-process.ts";
import type { NodeBundleSize } from "./node-bundle.ts";
import type { RuntimeFigures } from "./runtime-phase.ts";
import { meanAddedP50, podCreateLoads } from "./pod-create.ts";
import { fixed, printTable } from "./table.ts";
import type { BundleSize } from "./worker-bundle.ts";
import { cpuMicrosPerReview, maxRoundRssBytes, type FrugalFigures } from "./frugal.ts";
import { NODE_SERVER_NAME } from "./node-targets.ts";

export interface TargetRow {
  target: string;
  figure: string;
  met: boolean;
}

export interface TargetInputs {
  inProcess?: readonly InProcessResult[];
  bundles?: readonly BundleSize[];
  nodeBundles?: readonly NodeBundleSize[];
  coldStarts?: readonly ColdStart[];
  phases?: readonly RuntimeFigures[];
  frugal?: readonly FrugalFigures[];
}

export function judgeTargets({ inProcess = [], bundles = [], nodeBundles = [], coldStarts = [], phases = [], frugal = [] }: TargetInputs): TargetRow[] {
  const rows: TargetRow[] = [];
  for (const r of inProcess.filter((r) => r.containers === 10)) {
    rows.push({
      target: `in-process ${r.fn}, 10-container pod: p99 < 1 ms (best round)`,
      figure: `${fixed(r.bestRound.p99)} µs (all rounds: ${fixed(r.micros.p99)} µs)`,
      met: r.bestRound.p99 < 1000,
    });
  }
  for (const b of bundles) {
    rows.push({ target: `${b.fn} Worker bundle < 100 KiB gzipped`, figure: `${fixed(b.gzipBytes / 1024, 1)} KiB`, met: b.gzipBytes < 100 * 1024 });
  }
  for (const b of nodeBundles.filter((b) => b.target !== "server")) {
    const figure = `${fixed(b.rawBytes / 1024, 1)} KiB raw, ${fixed(b.gzipBytes / 1024, 1)} KiB gzip (${fixed(b.loadedRawBytes / 1024, 1)} KiB loaded at start)`;
    rows.push({ target: `${b.target} bundle <= 600 KiB raw`, figure, met: b.rawBytes <= 600 * 1024 });
  }
  for (const c of coldStarts) {
    rows.push({
      target: `Lambda cold start, import + first answer <= 60 ms (median; ${c.kubeconfig} kubeconfig, source maps ${c.sourceMaps ? "on" : "off"})`,
      figure: `${fixed(c.importMs.p50, 1)} + ${fixed(c.firstAnswerMs.p50, 1)} = ${fixed(c.totalMs.p50, 1)} ms (max ${fixed(c.totalMs.max, 1)})`,
      met: c.totalMs.p50 <= 60,
    });
  }
  for (const p of phases) {
    // Exactly, not at most: the caches start empty, so a count below the distinct names means the audit log missed
    // the function's calls (another identity), not a saving.
    const off = p.calls.filter((c) => c.cold.credspecReads !== c.distinct || c.cold.accessReviews !== (c.fn === "authorize" ? c.distinct : 0));
    const coldFigure = p.calls.map((c) => `${c.fn} ${c.containers}c: ${c.cold.credspecReads}+${c.cold.accessReviews}`).join(", ");
    rows.push({ target: `${p.runtime}: cold review, one read per distinct credspec and one access review per pair`, figure: `reads+reviews ${coldFigure}`, met: off.length === 0 });
    const warm = p.calls.reduce((sum, c) => sum + c.warm.credspecReads + c.warm.accessReviews, 0);
    rows.push({ target: `${p.runtime}: warm review, no API call`, figure: `${warm} calls in ${p.calls.length} warm reviews`, met: warm === 0 });
    for (const r of p.execRuns) {
      rows.push({ target: `${p.runtime} ${r.fn}: one exec plugin run per token lifetime`, figure: `${r.countFile} runs (at most ${r.allowed})`, met: r.countFile <= r.allowed && r.metricsFailed === 0 });
    }
    const added = meanAddedP50(p.podCreate.webhooks);
    rows.push({
      target: `${p.runtime}: webhooks add < 2 ms to a pod create at p50`,
      figure: `${fixed(added, 2)} ms (a do-nothing webhook pair: ${fixed(meanAddedP50(p.podCreate.floor), 2)} ms; means of ${p.podCreate.webhooks.length} rounds)`,
      met: added < 2,
    });
    const errors = p.cells.reduce((sum, c) => sum + c.load.errors, 0) + podCreateLoads(p.podCreate).reduce((sum, l) => sum + l.errors, 0);
    rows.push({ target: `${p.runtime}: every answer the expected one`, figure: `${errors} unexpected`, met: errors === 0 });
  }
  rows.push(...judgeFrugal(frugal.filter((f) => f.server === NODE_SERVER_NAME)));
  return rows;
}

const MIB = 1024 * 1024;
/** RSS after the last round may exceed the first round's by this much and still count as flat. */
const FLAT_RSS_BYTES = 5 * MIB;

/** Issue 12's memory and CPU targets for our Node server (section G). */
function judgeFrugal(figures: readonly FrugalFigures[]): TargetRow[] {
  return figures.flatMap((f) => {
    const rounds = f.roundRssBytes.map((b) => fixed(b / MIB, 1)).join(" / ");
    const growth = (f.roundRssBytes.at(-1) ?? 0) - (f.roundRssBytes[0] ?? 0);
    const cpu = cpuMicrosPerReview(f);
    return [
      { target: `node ${f.fn}: RSS at idle after start <= 60 MiB`, figure: `${fixed(f.idleRssBytes / MIB, 1)} MiB`, met: f.idleRssBytes <= 60 * MIB },
      {
        target: `node ${f.fn}: RSS after each round of reviews <= 90 MiB, flat over the rounds`,
        figure: `${rounds} MiB`,
        met: maxRoundRssBytes(f) <= 90 * MIB && growth <= FLAT_RSS_BYTES,
      },
      { target: `node ${f.fn}: server CPU per warm review <= 150 µs`, figure: `${fixed(cpu)} µs`, met: cpu <= 150 },
    ];
  });
}

export function printTargets(rows: readonly TargetRow[]): void {
  printTable("Targets (reported, not asserted)", ["target", "figure", "met"], rows.map((r) => [r.target, r.figure, r.met ? "met" : "NOT MET"]));
}
