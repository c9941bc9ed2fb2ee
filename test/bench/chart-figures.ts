/** The figures of docs/performance.svg, read by figures.ts as the budget table reads them. */
import type { ChartFigures, ChartGroup, ChartPanel } from "./chart.ts";
import {
  BUDGET_CONCURRENCY,
  BUDGET_POD_SIZES,
  PAIR_ORDER,
  podCreateAdded,
  podCreateRounds,
  residentMiB,
  reviewsPerSecond,
  serverCpuMicros,
  type RunFigures,
} from "./figures.ts";
import { FLOOR_SERVER_NAME, NODE_SERVER_NAME } from "./measured-target.ts";
import { REFERENCE_SERVER_NAME } from "./reference.ts";

/** What the chart needs of a run, and when the run started (ISO 8601). */
export type ChartInputs = RunFigures & { startedAt: string };

/** A value per series, leaving out the series that was not measured. */
function group(label: string, ours: number | undefined, go: number | undefined, floor?: number): ChartGroup {
  const values: ChartGroup["values"] = {};
  if (ours !== undefined) values.ours = ours;
  if (go !== undefined) values.go = go;
  if (floor !== undefined) values.floor = floor;
  return { label, values };
}

/** The chart's panels from one run; a figure the run did not measure is left out. */
export function chartFiguresOf(inputs: ChartInputs): ChartFigures {
  const byServer = (label: string, read: (server: string) => number | undefined) =>
    group(label, read(NODE_SERVER_NAME), read(REFERENCE_SERVER_NAME), read(FLOOR_SERVER_NAME));
  const created = podCreateAdded(podCreateRounds(inputs, "node"));
  const panels: ChartPanel[] = [
    {
      title: "Server CPU per warm review, 1-container pod",
      unit: "µs",
      lowerIsBetter: true,
      groups: PAIR_ORDER.map((fn) => byServer(fn, (server) => serverCpuMicros(inputs, server, fn))),
    },
    ...BUDGET_POD_SIZES.map((containers): ChartPanel => ({
      title: `Reviews per second straight to the function, ${containers}-container pod, concurrency ${BUDGET_CONCURRENCY}`,
      unit: "/s",
      lowerIsBetter: false,
      groups: PAIR_ORDER.map((fn) =>
        group(
          fn,
          reviewsPerSecond(inputs, "node", fn, containers),
          reviewsPerSecond(inputs, "reference", fn, containers),
        ),
      ),
    })),
    {
      title: "Added to a pod create through kube-apiserver, p50",
      unit: "ms",
      lowerIsBetter: true,
      digits: 2,
      groups: [
        group(
          "pod create",
          created?.added,
          podCreateAdded(podCreateRounds(inputs, "reference"))?.added,
          created?.floor,
        ),
      ],
    },
    {
      title: "Resident memory (largest of expand and authorize)",
      unit: "MiB",
      lowerIsBetter: true,
      digits: 1,
      groups: [
        byServer("idle", (server) => residentMiB(inputs, server)?.idle),
        byServer("after load", (server) => residentMiB(inputs, server)?.afterLoad),
      ],
    },
  ];
  const measured = panels
    .map((p) => ({ ...p, groups: p.groups.filter((g) => Object.keys(g.values).length > 0) }))
    .filter((p) => p.groups.length > 0);
  const reference = inputs.reference === undefined ? "; the Go reference not run (GMSA_REF_BIN unset)" : "";
  return {
    subtitle: `npm run bench of ${inputs.startedAt.slice(0, 16).replace("T", " ")} UTC${reference}`,
    panels: measured,
  };
}
