/** docs/performance.svg: the headline figures as bars, a self-contained SVG (no script, no external font). */
import { writeFile } from "node:fs/promises";
import { num } from "./table.ts";

/** Who a bar belongs to, in legend order. */
export const CHART_SERIES = ["ours", "go", "floor"] as const;
export type ChartSeries = (typeof CHART_SERIES)[number];

/** One row of bars: a label (a function, a pod size) and each series' value, absent when not measured. */
export interface ChartGroup {
  label: string;
  values: Partial<Record<ChartSeries, number>>;
}

/** One figure: its bars share a scale that starts at zero. */
export interface ChartPanel {
  title: string;
  /** Printed after each value: "µs", "reviews/s", "ms", "MiB". */
  unit: string;
  /** Whether a shorter bar is the better one; said in the panel's title. */
  lowerIsBetter: boolean;
  /** Decimals of the printed values (default 0). */
  digits?: number;
  groups: ChartGroup[];
}

/** What the chart shows, and the line under its title (the run it comes from). */
export interface ChartFigures {
  subtitle: string;
  panels: ChartPanel[];
}

const SERIES_STYLE: Record<ChartSeries, { name: string; color: string }> = {
  ours: { name: "gmsa-webhooks (Node server)", color: "#1f6feb" },
  go: { name: "windows-gmsa (Go reference)", color: "#d9730d" },
  floor: { name: "do-nothing Node HTTPS webhook", color: "#8c959f" },
};

const WIDTH = 760;
const LABEL_WIDTH = 110;
const VALUE_SPACE = 150;
const BAR_HEIGHT = 14;
const BAR_GAP = 3;
const GROUP_GAP = 10;
const PANEL_GAP = 22;
const TITLE_HEIGHT = 22;

function escapeXml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c] ?? c);
}

/** Two significant digits or so: 0.27x, 3.4x, 16x. */
function formatRatio(ratio: number): string {
  return `${num(ratio, ratio < 1 ? 2 : ratio < 10 ? 1 : 0)}x`;
}

/** The bars of one panel, from `top`; returns the SVG elements and the height used. */
function renderPanel(panel: ChartPanel, top: number): { svg: string[]; height: number } {
  const svg: string[] = [];
  const better = panel.lowerIsBetter ? "lower is better" : "higher is better";
  svg.push(
    `<text x="0" y="${top + 14}" class="panel">${escapeXml(panel.title)} <tspan class="note">(${better})</tspan></text>`,
  );
  const max = Math.max(...panel.groups.flatMap((g) => Object.values(g.values)));
  const scale = (WIDTH - LABEL_WIDTH - VALUE_SPACE) / (max > 0 ? max : 1);
  let y = top + TITLE_HEIGHT;
  for (const group of panel.groups) {
    const series = CHART_SERIES.filter((s) => group.values[s] !== undefined);
    const groupHeight = series.length * (BAR_HEIGHT + BAR_GAP) - BAR_GAP;
    svg.push(
      `<text x="${LABEL_WIDTH - 8}" y="${y + groupHeight / 2 + 4}" class="group">${escapeXml(group.label)}</text>`,
    );
    const go = group.values.go;
    for (const s of series) {
      const value = group.values[s]!;
      const width = Math.max(1, value * scale);
      const ratio = s === "ours" && go !== undefined && go > 0 ? ` (${formatRatio(value / go)} Go's)` : "";
      svg.push(
        `<rect x="${LABEL_WIDTH}" y="${y}" width="${width.toFixed(1)}" height="${BAR_HEIGHT}" fill="${SERIES_STYLE[s].color}"/>`,
      );
      svg.push(
        `<text x="${(LABEL_WIDTH + width + 5).toFixed(1)}" y="${y + BAR_HEIGHT - 3}" class="value">${num(value, panel.digits ?? 0)} ${escapeXml(panel.unit)}${ratio}</text>`,
      );
      y += BAR_HEIGHT + BAR_GAP;
    }
    y += GROUP_GAP - BAR_GAP;
  }
  return { svg, height: y - top };
}

export async function writeChart(path: URL | string, figures: ChartFigures): Promise<void> {
  const body: string[] = [];
  body.push(
    `<text x="0" y="18" class="title">gmsa-webhooks beside the Go reference, same machine, same API server</text>`,
  );
  body.push(`<text x="0" y="36" class="note">${escapeXml(figures.subtitle)}</text>`);
  let x = 0;
  for (const s of CHART_SERIES) {
    body.push(`<rect x="${x}" y="48" width="12" height="12" fill="${SERIES_STYLE[s].color}"/>`);
    body.push(`<text x="${x + 17}" y="58" class="value">${escapeXml(SERIES_STYLE[s].name)}</text>`);
    x += 17 + SERIES_STYLE[s].name.length * 6.2 + 18;
  }
  let y = 76;
  for (const panel of figures.panels) {
    const { svg, height } = renderPanel(panel, y);
    body.push(...svg);
    y += height + PANEL_GAP;
  }
  const height = Math.ceil(y - PANEL_GAP + 8);
  const svg = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="-10 -4 ${WIDTH + 20} ${height + 8}" role="img">`,
    `<title>gmsa-webhooks beside windows-gmsa: ${escapeXml(figures.subtitle)}</title>`,
    "<style>",
    "text { font-family: -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif; fill: #24292f; }",
    ".title { font-size: 16px; font-weight: 600; } .panel { font-size: 13px; font-weight: 600; }",
    ".note { font-size: 11px; font-weight: 400; fill: #57606a; } .value { font-size: 11px; }",
    ".group { font-size: 12px; text-anchor: end; }",
    "</style>",
    `<rect x="-10" y="-4" width="${WIDTH + 20}" height="${height + 8}" fill="#ffffff"/>`,
    ...body,
    "</svg>",
    "",
  ];
  await writeFile(path, svg.join("\n"));
}
