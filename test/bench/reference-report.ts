/**
 * The Go reference side by side with our Node functions: section B's rows with ratios, and the answers it gave that
 * were not the ones both implementations agree on (section F's pod creates are in pod-create-report.ts).
 */
import type { ReferenceFigures } from "./reference-phase.ts";
import { REFERENCE_SERVER_NAME } from "./reference.ts";
import type { RuntimeFigures } from "./runtime-phase.ts";
import { fixed, printTable, type Cell } from "./table.ts";

export function printReference(phases: readonly RuntimeFigures[], reference: ReferenceFigures): void {
  const node = phases.find((p) => p.runtime === "node");
  const rows: Cell[][] = reference.cells.map((r) => {
    const ours = node?.cells.find(
      (c) => c.fn === r.fn && c.containers === r.containers && c.load.concurrency === r.load.concurrency,
    );
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
    [
      "function",
      "containers",
      "concurrency",
      "node reviews/s",
      "Go reviews/s",
      "node / Go",
      "node p50 ms",
      "Go p50 ms",
      "node CPU µs/review",
      "Go CPU µs/review",
      "Go errors",
    ],
    rows,
    "The reference's paths: /mutate (expand) and /validate (authorize); its client-go limiter raised (QPS 1000, BURST 2000), " +
      "LOG_LEVEL=info. Its CPU includes its own API calls (it caches nothing); ours are warm.",
  );
  if (reference.wrongAnswers.length > 0)
    console.log(`\nThe reference's unexpected answers:\n${reference.wrongAnswers.map((w) => `- ${w}`).join("\n")}`);
}
