/** Reading /metrics in tests: Debian's Prometheus parser (infra/local/prometheus-parser.ts), never a regex of ours. */
import { ensurePrometheusParser, parsePrometheusText, type ParsedFamily, type ParsedSample } from "../../infra/local/prometheus-parser.ts";

export type { ParsedFamily, ParsedSample };

let ready: Promise<void> | undefined;

/** Parses a Prometheus text exposition, installing the parser on first use. */
export async function parseMetrics(text: string): Promise<ParsedFamily[]> {
  ready ??= ensurePrometheusParser();
  await ready;
  return parsePrometheusText(text);
}

/** The samples named `sampleName` whose labels include `labels`. */
export function samplesOf(families: ParsedFamily[], sampleName: string, labels: Record<string, string> = {}): ParsedSample[] {
  return families
    .flatMap((family) => family.samples)
    .filter((sample) => sample.name === sampleName && Object.entries(labels).every(([key, value]) => sample.labels[key] === value));
}

/** The sum of the matching samples' values (0 when there is none). */
export function sumOf(families: ParsedFamily[], sampleName: string, labels: Record<string, string> = {}): number {
  return samplesOf(families, sampleName, labels).reduce((sum, sample) => sum + Number(sample.value), 0);
}
