import { describe, expect, it } from "vitest";
import { buildDoctorReport, formatFindingsText, type Finding } from "../../../../cli/doctor/findings.ts";

const findings: Finding[] = [
  { check: "crd", status: "pass", message: "served" },
  { check: "webhooks/authorize", status: "fail", message: "missing", fix: "apply it" },
  { check: "nodes", status: "warn", message: "no Windows node", fix: "add one" },
];

describe("the doctor's report", () => {
  it("prints one line per check, the fix under failures and warnings, and the counts, painting only the status tags", () => {
    expect(formatFindingsText(findings)).toBe(
      [
        "ok   crd                 served",
        "FAIL webhooks/authorize  missing",
        "                         fix: apply it",
        "warn nodes               no Windows node",
        "                         fix: add one",
        "",
        "1 failed, 1 warnings, 1 passed, 0 skipped",
        "",
      ].join("\n"),
    );
    const paint = { ok: (t: string) => `<ok>${t}`, bad: (t: string) => `<bad>${t}`, warn: (t: string) => `<warn>${t}` };
    expect(formatFindingsText(findings, paint).split("\n").slice(0, 4)).toEqual([
      "<ok>ok   crd                 served",
      "<bad>FAIL webhooks/authorize  missing",
      "                         fix: apply it",
      "<warn>warn nodes               no Windows node",
    ]);
  });

  it("gives the findings and their counts as data for -o json|yaml", () => {
    expect(buildDoctorReport(findings)).toEqual({ findings, summary: { pass: 1, warn: 1, fail: 1, skip: 0 } });
    expect(buildDoctorReport([]).summary).toEqual({ pass: 0, warn: 0, fail: 0, skip: 0 });
  });
});
