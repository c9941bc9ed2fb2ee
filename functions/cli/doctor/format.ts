/** The doctor's report: one line per finding (and its fix), or the findings as data for `-o json|yaml`. */
import { stringify } from "yaml";
import type { Finding, FindingStatus } from "./findings.ts";

const TAGS: Record<FindingStatus, string> = { pass: "ok  ", warn: "warn", fail: "FAIL", skip: "skip" };

/** The counts of each status. */
export function summarize(findings: readonly Finding[]): Record<FindingStatus, number> {
  const counts = { pass: 0, warn: 0, fail: 0, skip: 0 };
  for (const f of findings) counts[f.status]++;
  return counts;
}

/** Text: `FAIL check  message`, the fix indented below, and a closing count. */
export function formatFindingsText(findings: readonly Finding[]): string {
  const width = Math.max(...findings.map((f) => f.check.length));
  const lines = findings.flatMap((f) => [`${TAGS[f.status]} ${f.check.padEnd(width)}  ${f.message}`, ...(f.fix !== undefined && f.status !== "pass" ? [`     ${" ".repeat(width)}  fix: ${f.fix}`] : [])]);
  const c = summarize(findings);
  return `${lines.join("\n")}\n\n${c.fail} failed, ${c.warn} warnings, ${c.pass} passed, ${c.skip} skipped\n`;
}

/** `-o json` or `-o yaml`: `{ findings, summary }`. */
export function formatFindingsData(findings: readonly Finding[], format: "json" | "yaml"): string {
  const data = { findings, summary: summarize(findings) };
  return format === "json" ? `${JSON.stringify(data, null, 2)}\n` : stringify(data);
}
