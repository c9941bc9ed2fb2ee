/**
 * The Go reference side by side with our Node functions: section B's rows with ratios, section F's pod
 * creates, and the pod-create target of issue 12 (≤ 1.5x what a do-nothing HTTPS webhook pair adds).
 */
import type { ReferenceFigures } from "./reference-phase.ts";
import { REFERENCE_SERVER_NAME } from "./reference.ts";
import type { PodCreatePair } from "./report.ts";
import type { RuntimeFigures } from "./runtime-phase.ts";
import { fixed, printTable, type Cell } from "./table.ts";
import type { TargetRow } from "./targets.ts";

/** What a pair of webhooks adds to a pod create at p50, in ms. */
function addedP50(pair: PodCreatePair): number {
  return pair.with.latencyMs.p50 - pair.without.latencyMs.p50;
}

export function printReference(phases: readonly RuntimeFigures[], reference: ReferenceFigures, floor: PodCreatePair | undefined): void {
  const node = phases.find((p) => p.runtime === "node");
  const rows: Cell[][] = reference.cells.map((r) => {
    const ours = node?.cells.find((c) => c.fn === r.fn && c.containers === r.containers && c.load.concurrency === r.load.concurrency);
    return [
      r.fn,
      r.containers,
      r.load.concurrency,
      ours === undefined ? "-" : fixed(ours.load.perSecond),
      fixed(r.load.perSecond),
      ours === undefined ? "-" : `${fixed(ours.load.perSecond / r.load.perSecond, 1)}x`,
      ours === undefined ? "-" : fixed(ours.load.latencyMs.p50, 2),
      fixed(r.load.latencyMs.p50, 2),
      ours === undefined ? "-" : fixed(ours.serverCpuMicrosPerReview),
      fixed(r.serverCpuMicrosPerReview),
      r.load.errors,
    ];
  });
  printTable(
    `B. Side by side with ${REFERENCE_SERVER_NAME} (GMSA_REF_BIN), same pods, same API server, HTTPS`,
    ["function", "containers", "concurrency", "node reviews/s", "Go reviews/s", "node / Go", "node p50 ms", "Go p50 ms", "node CPU µs/review", "Go CPU µs/review", "Go errors"],
    rows,
    "The reference's paths: /mutate (expand) and /validate (authorize); its client-go limiter raised (QPS 1000, BURST 2000), " +
      "LOG_LEVEL=info. Its CPU includes its own API calls (it caches nothing); ours are warm.",
  );
  const pairs: [string, PodCreatePair | undefined][] = [
    ["minimal Node webhook pair (floor)", floor],
    ["node functions", node?.podCreate],
    [REFERENCE_SERVER_NAME, reference.podCreate],
  ];
  printTable(
    "F. Side by side: what each webhook pair adds to a dry-run pod create at p50 (ms)",
    ["webhooks", "none p50", "with p50", "added p50", "added / floor's"],
    pairs.flatMap(([label, pair]) =>
      pair === undefined
        ? []
        : [[label, fixed(pair.without.latencyMs.p50, 2), fixed(pair.with.latencyMs.p50, 2), fixed(addedP50(pair), 2), floor === undefined ? "-" : `${fixed(addedP50(pair) / addedP50(floor), 2)}x`]],
    ),
  );
  if (reference.wrongAnswers.length > 0) console.log(`\nThe reference's unexpected answers:\n${reference.wrongAnswers.map((w) => `- ${w}`).join("\n")}`);
}

/** Issue 12's pod-create target for every webhook pair measured, and the reference's answers. */
export function judgePodCreateRatio(phases: readonly RuntimeFigures[], floor: PodCreatePair | undefined, reference?: ReferenceFigures): TargetRow[] {
  if (floor === undefined) return [];
  const floorAdded = addedP50(floor);
  const pairs: [string, PodCreatePair][] = [...phases.map((p): [string, PodCreatePair] => [`${p.runtime} functions`, p.podCreate])];
  if (reference !== undefined) pairs.push([REFERENCE_SERVER_NAME, reference.podCreate]);
  const rows = pairs.map(([label, pair]) => ({
    target: `${label}: p50 added to a pod create <= 1.5x a do-nothing HTTPS webhook pair's`,
    figure: `${fixed(addedP50(pair), 2)} ms = ${fixed(addedP50(pair) / floorAdded, 2)}x (floor ${fixed(floorAdded, 2)} ms)`,
    met: addedP50(pair) <= 1.5 * floorAdded,
  }));
  if (reference !== undefined) {
    const errors = reference.cells.reduce((sum, c) => sum + c.load.errors, 0) + reference.podCreate.with.errors;
    rows.push({ target: `${REFERENCE_SERVER_NAME}: answers as both agree (allow, deny, inlined credspecs)`, figure: `${reference.wrongAnswers.length + errors} unexpected`, met: reference.wrongAnswers.length + errors === 0 });
  }
  return rows;
}
