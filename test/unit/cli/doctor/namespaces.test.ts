import { describe, expect, it } from "vitest";
import { checkOldOptOutLabel } from "../../../../cli/doctor/namespaces.ts";

const namespace = (name: string, labels?: Record<string, string>) => ({
  metadata: { name, ...(labels ? { labels } : {}) },
});

describe("namespaces still labelled with windows-gmsa's opt-out", () => {
  it("warns once, naming each and the kubectl label that removes it, counting beyond ten; says nothing when none carries it", () => {
    const off = { "windows.k8s.io/disabled": "true" };
    const findings = checkOldOptOutLabel([
      namespace("web"),
      namespace("legacy", off),
      namespace("old", off),
      namespace("f", { "windows.k8s.io/disabled": "false" }),
    ]);
    expect(findings.map((f) => [f.check, f.status])).toEqual([["namespaces/opt-out-label", "warn"]]);
    expect(findings[0]?.message).toMatch(/is not honoured .*review GMSA pods in legacy, old$/);
    expect(findings[0]?.fix).toMatch(
      /^kubectl label namespace legacy old windows\.k8s\.io\/disabled-; .*webhooks\.exemptNamespaces/,
    );
    expect(checkOldOptOutLabel([namespace("web")])).toEqual([]);
    const many = Array.from({ length: 12 }, (_, i) => namespace(`n${i}`, { "windows.k8s.io/disabled": "true" }));
    expect(checkOldOptOutLabel(many)[0]?.message).toMatch(/n9 and 2 more$/);
  });
});
