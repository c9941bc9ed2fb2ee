/**
 * The figures of docs/performance.svg, taken from one bench run: server CPU per warm review and memory (section G),
 * reviews per second at concurrency 16 (section B) and what each webhook pair adds to a pod create (section F), each
 * for our Node server beside the Go reference (when GMSA_REF_BIN ran it) and the do-nothing webhook.
 */
import type { FunctionName } from "../../shared/config/index.ts";
import type { ChartFigures, ChartGroup, ChartPanel } from "./chart.ts";
import { cpuMicrosPerReview, maxRoundRssBytes, type FrugalFigures } from "./frugal.ts";
import { FLOOR_SERVER_NAME, NODE_SERVER_NAME } from "./node-targets.ts";
import { meanAddedP50 } from "./pod-create.ts";
import type { ReferenceFigures } from "./reference-phase.ts";
import { REFERENCE_SERVER_NAME } from "./reference.ts";
import type { RuntimeFigures } from "./runtime-phase.ts";

const MIB = 1024 * 1024;
const FUNCTIONS: readonly FunctionName[] = ["expand", "authorize"];
/** The concurrency of the reviews-per-second panels (the budget's). */
const CONCURRENCY = 16;

/** What one run measured, as run.ts holds it. */
export interface ChartInputs {
  phases: readonly RuntimeFigures[];
  frugal: readonly FrugalFigures[];
  reference?: ReferenceFigures;
  /** When the run started (ISO 8601). */
  startedAt: string;
}

function frugalOf(frugal: readonly FrugalFigures[], server: string, fn: FunctionName): FrugalFigures | undefined {
  return frugal.find((f) => f.server === server && f.fn === fn);
}

/** A value per series, leaving out the series that was not measured. */
function group(label: string, ours: number | undefined, go: number | undefined, floor?: number): ChartGroup {
  const values: ChartGroup["values"] = {};
  if (ours !== undefined) values.ours = ours;
  if (go !== undefined) values.go = go;
  if (floor !== undefined) values.floor = floor;
  return { label, values };
}

function reviewsPerSecond(inputs: ChartInputs, containers: number): ChartPanel {
  const node = inputs.phases.find((p) => p.runtime === "node");
  const cell = (cells: RuntimeFigures["cells"] | ReferenceFigures["cells"] | undefined, fn: FunctionName) =>
    cells?.find((c) => c.fn === fn && c.containers === containers && c.load.concurrency === CONCURRENCY)?.load.perSecond;
  return {
    title: `Reviews per second straight to the function, ${containers}-container pod, concurrency ${CONCURRENCY}`,
    unit: "/s",
    lowerIsBetter: false,
    groups: FUNCTIONS.map((fn) => group(fn, cell(node?.cells, fn), cell(inputs.reference?.cells, fn))),
  };
}

/** The chart's panels from one run; a figure the run did not measure is left out. */
export function chartFiguresOf(inputs: ChartInputs): ChartFigures {
  const cpu = (server: string, fn: FunctionName) => {
    const f = frugalOf(inputs.frugal, server, fn);
    return f === undefined ? undefined : cpuMicrosPerReview(f);
  };
  const rss = (server: string, read: (f: FrugalFigures) => number) => {
    const values = FUNCTIONS.map((fn) => frugalOf(inputs.frugal, server, fn)).filter((f) => f !== undefined).map(read);
    return values.length === 0 ? undefined : Math.max(...values) / MIB;
  };
  const idle = (f: FrugalFigures) => f.idleRssBytes;
  const node = inputs.phases.find((p) => p.runtime === "node");
  const panels: ChartPanel[] = [
    {
      title: "Server CPU per warm review, 1-container pod",
      unit: "µs",
      lowerIsBetter: true,
      groups: FUNCTIONS.map((fn) => group(fn, cpu(NODE_SERVER_NAME, fn), cpu(REFERENCE_SERVER_NAME, fn), cpu(FLOOR_SERVER_NAME, fn))),
    },
    reviewsPerSecond(inputs, 1),
    reviewsPerSecond(inputs, 10),
    {
      title: "Added to a pod create through kube-apiserver, p50",
      unit: "ms",
      lowerIsBetter: true,
      digits: 2,
      groups: [
        group(
          "pod create",
          node === undefined ? undefined : meanAddedP50(node.podCreate.webhooks),
          inputs.reference === undefined ? undefined : meanAddedP50(inputs.reference.podCreate.webhooks),
          node === undefined ? undefined : meanAddedP50(node.podCreate.floor),
        ),
      ],
    },
    {
      title: "Resident memory (largest of expand and authorize)",
      unit: "MiB",
      lowerIsBetter: true,
      digits: 1,
      groups: [
        group("idle", rss(NODE_SERVER_NAME, idle), rss(REFERENCE_SERVER_NAME, idle), rss(FLOOR_SERVER_NAME, idle)),
        group("after load", rss(NODE_SERVER_NAME, maxRoundRssBytes), rss(REFERENCE_SERVER_NAME, maxRoundRssBytes), rss(FLOOR_SERVER_NAME, maxRoundRssBytes)),
      ],
    },
  ];
  const measured = panels
    .map((p) => ({ ...p, groups: p.groups.filter((g) => Object.keys(g.values).length > 0) }))
    .filter((p) => p.groups.length > 0);
  const reference = inputs.reference === undefined ? "; the Go reference not run (GMSA_REF_BIN unset)" : "";
  return { subtitle: `npm run bench of ${inputs.startedAt.slice(0, 16).replace("T", " ")} UTC${reference}`, panels: measured };
}
