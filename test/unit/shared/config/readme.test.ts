/**
 * The README's Configuration table against shared/config/variables.ts: every variable the module reads has a row
 * with the same default, and every row names a variable the module knows.
 */
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { documentedDefault, VARIABLES, type VariableName } from "../../../../shared/config/variables.ts";

/** Variable name -> the default column of its row, from the table under "## Configuration". */
async function readmeRows(): Promise<Map<string, string>> {
  const readme = await readFile(new URL("../../../../README.md", import.meta.url), "utf8");
  const section = readme.split(/^## /m).find((part) => part.startsWith("Configuration\n")) ?? "";
  const rows = new Map<string, string>();
  for (const line of section.split("\n")) {
    const cells = /^\|(.*)\|$/.exec(line.trim())?.[1]?.split("|").map((cell) => cell.trim());
    if (cells === undefined || cells.length < 3) continue;
    const [names = "", fallback = ""] = cells;
    for (const name of names.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) rows.set(name[1] ?? "", fallback);
  }
  return rows;
}

describe("the README's Configuration table", () => {
  it("has a row for every variable, with the module's default", async () => {
    const rows = await readmeRows();
    for (const name of Object.keys(VARIABLES) as VariableName[]) {
      expect(rows.has(name), `README row for ${name}`).toBe(true);
      expect(rows.get(name), `README default of ${name}`).toBe(documentedDefault(name));
    }
  });

  it("names no variable the module does not read", async () => {
    const rows = await readmeRows();
    expect(rows.size).toBeGreaterThan(40);
    expect([...rows.keys()].filter((name) => !(name in VARIABLES))).toEqual([]);
  });
});
