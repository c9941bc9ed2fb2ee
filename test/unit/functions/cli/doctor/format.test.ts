import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { formatFindingsData, formatFindingsText, summarize } from "../../../../../functions/cli/doctor/format.ts";
import type { Finding } from "../../../../../functions/cli/doctor/findings.ts";

const findings: Finding[] = [
  { check: "crd", status: "pass", message: "served" },
  { check: "webhooks/authorize", status: "fail", message: "missing", fix: "apply it" },
  { check: "nodes", status: "warn", message: "no Windows node", fix: "add one" },
];

describe("the doctor's report", () => {
  it("prints one line per check, the fix under failures and warnings, and the counts", () => {
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
  });

  it("gives the findings and their counts as JSON or YAML", () => {
    const expected = { findings, summary: { pass: 1, warn: 1, fail: 1, skip: 0 } };
    expect(JSON.parse(formatFindingsData(findings, "json"))).toEqual(expected);
    expect(parse(formatFindingsData(findings, "yaml"))).toEqual(expected);
    expect(summarize([])).toEqual({ pass: 0, warn: 0, fail: 0, skip: 0 });
  });
});
