/**
 * The fault test's timeline: one line per second of send time and one per phase, counting answers by
 * outcome, through the API server and straight to the functions.
 */
import type { FaultOutcome } from "./fault-cases.ts";
import type { FaultRecord } from "./fault-load.ts";

const OUTCOMES: readonly FaultOutcome[] = ["admitted", "denied", "failClosed", "apiserver", "other"];

type Counts = Record<FaultOutcome, number> & { attempts: number };

function count(records: readonly FaultRecord[]): Counts {
  const counts = { attempts: records.length, admitted: 0, denied: 0, failClosed: 0, apiserver: 0, other: 0 };
  for (const r of records) counts[r.outcome]++;
  return counts;
}

function cells(counts: Counts, width = 5): string {
  return [counts.attempts, ...OUTCOMES.map((o) => counts[o])].map((n) => String(n).padStart(width)).join(" ");
}

const HEADER_CELLS = ["tries", "admit", "deny", "500", "apisv", "other"].map((h) => h.padStart(5)).join(" ");

/** One row: the API server's answers, then the functions' own. */
function row(label: string, records: readonly FaultRecord[]): string {
  const apiserver = records.filter((r) => r.via === "apiserver");
  const direct = records.filter((r) => r.via === "direct");
  return `${label} | ${cells(count(apiserver))} | ${cells(count(direct))}`;
}

/**
 * The timeline as text lines: per second (the phase named is the one the second began in), then per
 * phase. Columns: attempts, admitted (201 / allowed), denied by a rule (403, 422), denied fail-closed (500),
 * refused by the API server itself, other.
 */
export function formatTimeline(records: readonly FaultRecord[], phases: readonly string[]): string[] {
  const seconds = Math.ceil(Math.max(0, ...records.map((r) => r.sentMs)) / 1000);
  const lines = [
    `${"t(s)".padEnd(5)} ${"phase".padEnd(18)} | ${"pod creates through kube-apiserver".padEnd(35)} | reviews straight to the functions`,
    `${"".padEnd(24)} | ${HEADER_CELLS} | ${HEADER_CELLS}`,
  ];
  for (let s = 0; s < seconds; s++) {
    const inSecond = records
      .filter((r) => r.sentMs >= s * 1000 && r.sentMs < (s + 1) * 1000)
      .sort((a, b) => a.sentMs - b.sentMs);
    if (inSecond.length === 0) continue;
    lines.push(row(`${String(s).padEnd(5)} ${inSecond[0]!.phase.padEnd(18)}`, inSecond));
  }
  lines.push("per phase:");
  for (const phase of phases) {
    const inPhase = records.filter((r) => r.phase === phase);
    if (inPhase.length > 0) lines.push(row(`${"".padEnd(5)} ${phase.padEnd(18)}`, inPhase));
  }
  lines.push(row(`${"".padEnd(5)} ${"all".padEnd(18)}`, records));
  return lines;
}
