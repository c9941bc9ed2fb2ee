/** What every run checks besides the budgets; an unexpected answer also fails the run (run.ts). */
import { podCreateLoads, type PodCreateRounds } from "./pod-create.ts";
import type { ReferenceFigures } from "./reference-phase.ts";
import { REFERENCE_SERVER_NAME } from "./reference.ts";
import type { RuntimeFigures } from "./runtime-phase.ts";
import { printTable } from "./table.ts";
import type { MeasuredRow } from "./throughput.ts";

/** A check, the figure it is judged on, and whether it passed. */
export type CheckRow = [check: string, figure: string, ok: boolean];

/** Unexpected answers of a phase's section B rows and pod creates; the reference's also counts its wrong answers. */
export function phaseErrors(p: { cells: readonly MeasuredRow[]; podCreate: PodCreateRounds }): number {
  return (
    p.cells.reduce((sum, c) => sum + c.load.errors, 0) +
    podCreateLoads(p.podCreate).reduce((sum, l) => sum + l.errors, 0)
  );
}

export function referenceErrors(reference: ReferenceFigures): number {
  return reference.wrongAnswers.length + phaseErrors(reference);
}

export function judgeChecks(phases: readonly RuntimeFigures[], reference: ReferenceFigures | undefined): CheckRow[] {
  const rows: CheckRow[] = [];
  for (const p of phases) {
    // Exactly, not at most: the caches start empty, so a count below the distinct names means the audit log missed
    // the function's calls (another identity), not a saving.
    const off = p.calls.filter(
      (c) => c.cold.credspecReads !== c.distinct || c.cold.accessReviews !== (c.fn === "authorize" ? c.distinct : 0),
    );
    const coldFigure = p.calls
      .map((c) => `${c.fn} ${c.containers}c: ${c.cold.credspecReads}+${c.cold.accessReviews}`)
      .join(", ");
    const warm = p.calls.reduce((sum, c) => sum + c.warm.credspecReads + c.warm.accessReviews, 0);
    const errors = phaseErrors(p);
    rows.push(
      [
        `${p.runtime}: cold review, one read per distinct credspec and one access review per pair`,
        `reads+reviews ${coldFigure}`,
        off.length === 0,
      ],
      [`${p.runtime}: warm review, no API call`, `${warm} calls in ${p.calls.length} warm reviews`, warm === 0],
      ...p.execRuns.map((r): CheckRow => [
        `${p.runtime} ${r.fn}: one exec plugin run per token lifetime`,
        `${r.countFile} runs (at most ${r.allowed})`,
        r.countFile <= r.allowed && r.metricsFailed === 0,
      ]),
      [`${p.runtime}: every answer the expected one`, `${errors} unexpected`, errors === 0],
    );
  }
  if (reference !== undefined) {
    const unexpected = referenceErrors(reference);
    rows.push([
      `${REFERENCE_SERVER_NAME}: answers as both agree (allow, deny, inlined credspecs)`,
      `${unexpected} unexpected`,
      unexpected === 0,
    ]);
  }
  return rows;
}

export function printChecks(rows: readonly CheckRow[]): void {
  if (rows.length === 0) return;
  printTable(
    "Checks",
    ["check", "figure", "ok"],
    rows.map(([check, figure, ok]) => [check, figure, ok ? "ok" : "FAILED"]),
  );
}
