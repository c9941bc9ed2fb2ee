/** The doctor's report: one line per finding (and its fix) for people, or the findings and their counts as data. */
import type { Finding, FindingStatus } from "./findings.ts";

/** Colours for a terminal (the CLI's paint); identity functions print plain text. */
export interface ReportPaint {
  ok(text: string): string;
  bad(text: string): string;
  warn(text: string): string;
}

const plain: ReportPaint = { ok: (t) => t, bad: (t) => t, warn: (t) => t };

const TAGS: Record<FindingStatus, { tag: string; paint: keyof ReportPaint | undefined }> = {
  pass: { tag: "ok  ", paint: "ok" },
  warn: { tag: "warn", paint: "warn" },
  fail: { tag: "FAIL", paint: "bad" },
  skip: { tag: "skip", paint: undefined },
};

/** The counts of each status. */
export function summarize(findings: readonly Finding[]): Record<FindingStatus, number> {
  const counts = { pass: 0, warn: 0, fail: 0, skip: 0 };
  for (const f of findings) counts[f.status]++;
  return counts;
}

/** What `-o json|yaml` prints: `{ findings, summary }`. */
export function buildDoctorReport(findings: readonly Finding[]): { findings: readonly Finding[]; summary: Record<FindingStatus, number> } {
  return { findings, summary: summarize(findings) };
}

/** Text: `FAIL check  message`, the fix indented below, and a closing count. */
export function formatFindingsText(findings: readonly Finding[], paint: ReportPaint = plain): string {
  const width = Math.max(0, ...findings.map((f) => f.check.length));
  const lines = findings.flatMap((f) => {
    const { tag, paint: colour } = TAGS[f.status];
    const line = `${colour === undefined ? tag : paint[colour](tag)} ${f.check.padEnd(width)}  ${f.message}`;
    return f.fix !== undefined && f.status !== "pass" ? [line, `     ${" ".repeat(width)}  fix: ${f.fix}`] : [line];
  });
  const c = summarize(findings);
  return `${lines.join("\n")}\n\n${c.fail} failed, ${c.warn} warnings, ${c.pass} passed, ${c.skip} skipped\n`;
}
