/**
 * infra/deploy/grafana/gmsa-webhooks-dashboard.json against the Node server's registry, its exposition read by
 * Debian's Prometheus parser.
 */
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { createPrometheusMetrics } from "../../../functions/node/prometheus.ts";
import { parseMetrics } from "../../support/prometheus.ts";

interface Panel {
  title: string;
  targets: { expr: string }[];
}
interface Dashboard {
  panels: Panel[];
  templating: { list: { name: string; query?: unknown; definition?: string }[] };
}

const dashboard = JSON.parse(
  await readFile(new URL("../../../infra/deploy/grafana/gmsa-webhooks-dashboard.json", import.meta.url), "utf8"),
) as Dashboard;

/**
 * Every sample name /metrics can carry: counters with `_total` (the parser names the family without it), histograms
 * with their three series, the rest as named.
 */
async function servedSampleNames(): Promise<Set<string>> {
  const metrics = createPrometheusMetrics();
  metrics.collectKubeCounters(() => ({
    credSpecCache: { hits: 0, misses: 0, size: 0 },
    accessCache: { hits: 0, misses: 0, size: 0 },
  }));
  const families = await parseMetrics((await metrics.exposition()).body);
  const suffixes: Record<string, string[]> = { counter: ["_total"], histogram: ["_bucket", "_sum", "_count"] };
  return new Set(families.flatMap(({ name, type }) => (suffixes[type] ?? [""]).map((suffix) => `${name}${suffix}`)));
}

/** The metric names a PromQL expression names: identifiers directly followed by a selector or a range. */
function metricNames(expr: string): string[] {
  return [...expr.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\s*[{[]/g)].map((match) => match[1] ?? "");
}

const served = await servedSampleNames();

describe("the Grafana dashboard", () => {
  const queries = [
    ...dashboard.panels.flatMap((panel) => panel.targets.map((target) => ({ where: panel.title, expr: target.expr }))),
    ...dashboard.templating.list
      .filter((variable) => variable.definition !== undefined)
      .map((variable) => ({ where: `$${variable.name}`, expr: variable.definition ?? "" })),
  ];

  it("queries only metrics the Node server's registry serves", () => {
    expect(served.has("gmsa_webhooks_reviews_total")).toBe(true);
    expect(served.has("process_resident_memory_bytes")).toBe(true);
    for (const { where, expr } of queries) {
      const names = metricNames(expr.replace(/label_values\(([a-z_]+),/, "$1{} ,"));
      expect(names.length, `${where}: ${expr}`).toBeGreaterThan(0);
      for (const name of names) expect(served.has(name), `${where} queries ${name}`).toBe(true);
    }
  });

  it("has the panels operators need", () => {
    const exprs = queries.map((query) => query.expr).join("\n");
    for (const needed of [
      "gmsa_webhooks_reviews_total",
      'code="500"',
      "histogram_quantile(0.99, sum by (le, function) (rate(gmsa_webhooks_review_duration_seconds_bucket",
      "histogram_quantile(0.5, sum by (le, function) (rate(gmsa_webhooks_review_duration_seconds_bucket",
      "gmsa_webhooks_kube_requests_total",
      "gmsa_webhooks_kube_request_duration_seconds_bucket",
      "gmsa_webhooks_token_refreshes_total",
      'gmsa_webhooks_cache_requests_total{job=~"$job",result="hit"}',
      "process_resident_memory_bytes",
    ]) {
      expect(exprs).toContain(needed);
    }
  });
});
