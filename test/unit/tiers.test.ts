/**
 * test/tiers.ts against the test files themselves: a file that uses Helm, the node or the image gets it prepared, so
 * nothing is built inside its timeout; and every tools or e2e file named there exists.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../infra/build/repo-root.ts";
import { STEPS } from "../prepare.ts";
import { E2E_NEEDS, FLOOR_FILES, filesOf, selectTiers, stepsOf, testFiles, tierNamed } from "../tiers.ts";

const read = (file: string): string => readFileSync(path.join(REPO_ROOT, file), "utf8");
const ids = (file: string, tier: "tools" | "e2e"): string[] => stepsOf(tierNamed(tier), [file]).map((step) => step.id);

describe("what the e2e files need", () => {
  it.each(testFiles("test/e2e"))(
    "%s gets the node, Helm and the image when it starts an in-cluster stack, Helm when it injects it",
    (file) => {
      const text = read(file);
      const needs = ids(file, "e2e");
      expect(needs[0]).toMatch(/^kube-v/);
      if (/startInClusterStack\(|"--in-cluster"/.test(text)) {
        expect(needs).toEqual(
          expect.arrayContaining([expect.stringMatching(/^node-v/), STEPS.helm.id, STEPS.image.id]),
        );
      } else {
        expect(needs.some((id) => id.startsWith("node-"))).toBe(false);
      }
      if (/inject\("helm"\)/.test(text)) expect(needs).toContain(STEPS.helm.id);
      if (/startLocalRegistry\(/.test(text)) expect(needs).toContain(STEPS.registry.id);
    },
  );

  it("names only files that exist, and the floor's are e2e files", () => {
    const e2e = testFiles("test/e2e");
    expect(e2e.length).toBeGreaterThan(10);
    for (const file of [...Object.keys(E2E_NEEDS), ...FLOOR_FILES]) expect(e2e).toContain(file);
    expect(filesOf(tierNamed("e2e-floor"))).toEqual(FLOOR_FILES);
  });

  it("builds the floor's cluster for the floor tier, the newest for the e2e tier", () => {
    const floor = stepsOf(tierNamed("e2e-floor")).map((step) => step.id);
    const newest = stepsOf(tierNamed("e2e")).map((step) => step.id);
    expect(floor[0]).not.toBe(newest[0]);
    expect(floor).toContain(floor[0]!.replace("kube-", "node-"));
  });
});

describe("what the tools files need", () => {
  it.each(testFiles("test/tools"))("%s gets every prepared program it reads", (file) => {
    const text = read(file);
    const needs = ids(file, "tools");
    expect(needs).toContain(STEPS.shellTools.id);
    if (/preparedProgram\("helm"\)/.test(text)) expect(needs).toContain(STEPS.helm.id);
    if (/preparedProgram\("actionlint"\)/.test(text)) expect(needs).toContain(STEPS.actionlint.id);
    if (/preparedImage\(\)/.test(text)) expect(needs).toContain(STEPS.image.id);
    if (/preparedAwsCli\(\)/.test(text)) expect(needs).toContain(STEPS.awscli.id);
    if (/parseMetrics|support\/prometheus\.ts|\/harness\.ts/.test(text))
      expect(needs).toContain(STEPS.prometheusParser.id);
  });
});

it("the unit tier is every file of test/unit, and no other tier shares its folder", () => {
  expect(filesOf(tierNamed("unit"))).toContain("test/unit/tiers.test.ts");
  expect(filesOf(tierNamed("tools")).some((file) => file.startsWith("test/unit/"))).toBe(false);
});

describe("what npm test's arguments select", () => {
  const names = (args: string[]) =>
    selectTiers(args).map(({ tier, files }) => `${tier.name}:${(files ?? filesOf(tier)).length}`);

  it("every tier with no argument, the floor with its own files", () => {
    expect(selectTiers([]).map(({ tier }) => tier.name)).toEqual(["unit", "tools", "worker", "e2e", "e2e-floor"]);
    expect(names(["e2e-floor"])).toEqual([`e2e-floor:${FLOOR_FILES.length}`]);
  });

  it("a file in the first tier of its folder, and only that file", () => {
    expect(selectTiers(["test/e2e/policy.test.ts", "test/unit/tiers.test.ts"])).toEqual([
      { tier: tierNamed("unit"), files: ["test/unit/tiers.test.ts"] },
      { tier: tierNamed("e2e"), files: ["test/e2e/policy.test.ts"] },
    ]);
    expect(stepsOf(tierNamed("e2e"), ["test/e2e/policy.test.ts"]).some((step) => step.id.startsWith("node-"))).toBe(
      false,
    );
  });

  it("refuses what is neither a tier nor a test file of one", () => {
    expect(() => selectTiers(["e2e", "everything"])).toThrow(/not a tier or a test file of one: everything/);
  });
});
