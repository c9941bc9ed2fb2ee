/** Plain-text tables for the benchmark's output (Markdown pipe tables, so RESULTS.md can quote them). */
import { loadavg } from "node:os";
import type { Summary } from "./percentiles.ts";

export type Cell = string | number;

export const MIB = 2 ** 20;

/** A number with `digits` decimals, "-" when it is not finite. */
export function fixed(value: number, digits = 0): string {
  return Number.isFinite(value) ? value.toFixed(digits) : "-";
}

/** `value` with thousands separators and `digits` decimals; "-" when absent or not finite. */
export function num(value: number | undefined, digits = 0): string {
  return value === undefined || !Number.isFinite(value)
    ? "-"
    : value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** The machine's load averages (1, 5 and 15 minutes), as the bench prints them beside its figures. */
export const loadAvg = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

export function mib(bytes: number): string {
  return fixed(bytes / MIB, 1);
}

export function kib(bytes: number): string {
  return fixed(bytes / 1024, 1);
}

/** The median and the maximum of `summary`: "12.3 (max 45.6)". */
export function p50Max(summary: Summary, digits = 0): string {
  return `${fixed(summary.p50, digits)} (max ${fixed(summary.max, digits)})`;
}

/** Formats one table: header, separator, rows; numbers right-aligned. */
export function formatTable(columns: readonly string[], rows: readonly (readonly Cell[])[]): string {
  const text = rows.map((row) => columns.map((_, i) => String(row[i] ?? "")));
  const widths = columns.map((column, i) => Math.max(column.length, ...text.map((row) => row[i]!.length)));
  const numeric = columns.map(
    (_, i) =>
      rows.length > 0 &&
      rows.every((row) => typeof row[i] === "number" || /^[\d.,-]+( \S+)?$/.test(String(row[i] ?? ""))),
  );
  const line = (cells: string[]) =>
    `| ${cells.map((cell, i) => (numeric[i] ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join(" | ")} |`;
  const separator = `| ${widths.map((w, i) => (numeric[i] ? `${"-".repeat(w - 1)}:` : "-".repeat(w))).join(" | ")} |`;
  return [line([...columns]), separator, ...text.map(line)].join("\n");
}

export function printTable(
  title: string,
  columns: readonly string[],
  rows: readonly (readonly Cell[])[],
  note?: string,
): void {
  console.log(`\n### ${title}\n`);
  console.log(formatTable(columns, rows));
  if (note !== undefined) console.log(`\n${note}`);
}

/** A column: its header, and its cell read from one item. */
export type Column<T> = readonly [header: string, cell: (item: T) => Cell];

export function rowsOf<T>(columns: readonly Column<T>[], items: readonly T[]): Cell[][] {
  return items.map((item) => columns.map(([, cell]) => cell(item)));
}

/** {@link printTable} of one row per item. */
export function printColumns<T>(
  title: string,
  columns: readonly Column<T>[],
  items: readonly T[],
  note?: string,
): void {
  printTable(
    title,
    columns.map(([header]) => header),
    rowsOf(columns, items),
    note,
  );
}
