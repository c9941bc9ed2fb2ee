/** Section B's rows of the Go reference beside our Node functions, and its unexpected answers. */
import type { ReferenceFigures } from "./reference-phase.ts";
import { REFERENCE_SERVER_NAME } from "./reference.ts";
import type { RuntimeFigures } from "./runtime-phase.ts";
import { fixed, printColumns, type Cell } from "./table.ts";
import type { MeasuredRow, ThroughputCell } from "./throughput.ts";

export function printReference(phases: readonly RuntimeFigures[], reference: ReferenceFigures): void {
  const node = phases.find((p) => p.runtime === "node");
  const ourCell = (r: MeasuredRow) =>
    node?.cells.find(
      (c) => c.fn === r.fn && c.containers === r.containers && c.load.concurrency === r.load.concurrency,
    );
  const ours = (read: (ours: ThroughputCell, r: MeasuredRow) => Cell) => (r: MeasuredRow) => {
    const cell = ourCell(r);
    return cell === undefined ? "-" : read(cell, r);
  };
  printColumns(
    `B. Side by side with ${REFERENCE_SERVER_NAME} (GMSA_REF_BIN), same pods, same API server, HTTPS`,
    [
      ["function", (r) => r.fn],
      ["containers", (r) => r.containers],
      ["concurrency", (r) => r.load.concurrency],
      ["node reviews/s", ours((c) => fixed(c.load.perSecond))],
      ["Go reviews/s", (r) => fixed(r.load.perSecond)],
      ["node / Go", ours((c, r) => `${fixed(c.load.perSecond / r.load.perSecond, 1)}x`)],
      ["node p50 ms", ours((c) => fixed(c.load.latencyMs.p50, 2))],
      ["Go p50 ms", (r) => fixed(r.load.latencyMs.p50, 2)],
      ["node CPU µs/review", ours((c) => fixed(c.serverCpuMicrosPerReview))],
      ["Go CPU µs/review", (r) => fixed(r.serverCpuMicrosPerReview)],
      ["Go errors", (r) => r.load.errors],
    ],
    reference.cells,
    "The reference's paths: /mutate (expand) and /validate (authorize); its client-go limiter raised (QPS 1000, BURST 2000), " +
      "LOG_LEVEL=info. Its CPU includes its own API calls (it caches nothing); ours are warm.",
  );
  if (reference.wrongAnswers.length > 0)
    console.log(`\nThe reference's unexpected answers:\n${reference.wrongAnswers.map((w) => `- ${w}`).join("\n")}`);
}
