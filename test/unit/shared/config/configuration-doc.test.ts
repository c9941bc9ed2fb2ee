/** The variables table of docs/configuration.md against shared/config/variables.ts. */
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { VARIABLES, type Variable, type VariableName } from "../../../../shared/config/variables.ts";

const DOC = new URL("../../../../docs/configuration.md", import.meta.url);
/** The header row that starts the table; other tables on the page are not read. */
const HEADER = /^\|\s*variable\s*\|\s*default\s*\|\s*meaning\s*\|$/;

/** Variable name -> the default column of its row, from the table under the `| variable | default | meaning |` header. */
async function documentedRows(): Promise<Map<string, string>> {
  const lines = (await readFile(DOC, "utf8")).split("\n").map((line) => line.trim());
  const start = lines.findIndex((line) => HEADER.test(line));
  const rows = new Map<string, string>();
  if (start < 0) return rows;
  // Skip the header and its separator; the table ends at the first line that is not a row.
  for (const line of lines.slice(start + 2)) {
    const cells = /^\|(.*)\|$/
      .exec(line)?.[1]
      ?.split("|")
      .map((cell) => cell.trim());
    if (cells === undefined) break;
    if (cells.length < 3) continue;
    const [names = "", fallback = ""] = cells;
    for (const name of names.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) rows.set(name[1] ?? "", fallback);
  }
  return rows;
}

/** What the default column of docs/configuration.md says for `name`: the value in backticks, or the table's description. */
function documentedDefault(name: VariableName): string {
  const variable: Variable = VARIABLES[name];
  switch (variable.kind) {
    case "text":
      return variable.documented;
    case "list":
      return `\`${variable.default.join(",")}\``;
    default:
      return `\`${String(variable.default)}\``;
  }
}

describe("the variables table of docs/configuration.md", () => {
  it("has a row for every variable, with the module's default, and names no variable the module does not read", async () => {
    const rows = await documentedRows();
    expect(rows.size, "the table was not found").toBeGreaterThan(0);
    for (const name of Object.keys(VARIABLES) as VariableName[]) {
      expect(rows.has(name), `docs/configuration.md row for ${name}`).toBe(true);
      expect(rows.get(name), `docs/configuration.md default of ${name}`).toBe(documentedDefault(name));
    }
    expect([...rows.keys()].filter((name) => !(name in VARIABLES))).toEqual([]);
  });
});
