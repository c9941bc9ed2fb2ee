/** Reading /metrics in tests: Debian's Prometheus parser (infra/local/prometheus-parser.ts), never a regex of ours. */
import type { ParsedFamily, ParsedSample } from "../../infra/local/prometheus-parser.ts";

export type { ParsedFamily, ParsedSample };
/** Parses a Prometheus text exposition, installing the parser on first use. */
export { parseExposition as parseMetrics } from "../../infra/local/stack-metrics.ts";

/** The samples named `sampleName` whose labels include `labels`. */
export function samplesOf(
  families: ParsedFamily[],
  sampleName: string,
  labels: Record<string, string> = {},
): ParsedSample[] {
  return families
    .flatMap((family) => family.samples)
    .filter(
      (sample) =>
        sample.name === sampleName && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
    );
}

/** The sum of the matching samples' values (0 when there is none). */
export function sumOf(families: ParsedFamily[], sampleName: string, labels: Record<string, string> = {}): number {
  return samplesOf(families, sampleName, labels).reduce((sum, sample) => sum + Number(sample.value), 0);
}
