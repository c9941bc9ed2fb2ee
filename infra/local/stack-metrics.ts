/**
 * A function's /metrics as the stack's callers read it: the Node server answers the Prometheus text format, read
 * with Debian's parser; the Worker a JSON snapshot. Both become the same flat counters (`<fn>_reviews_total`,
 * `<fn>_allowed_total`, `<fn>_denied_<code>_total`, `execRuns_<outcome>`, `credSpecCache_hits`, ...).
 */
import type { FunctionName } from "../../shared/config/index.ts";
import { ensurePrometheusParser, parsePrometheusText, type ParsedFamily } from "./prometheus-parser.ts";

let parserReady: Promise<void> | undefined;

/** Parses the Node server's exposition, installing the parser on first use. */
export async function parseExposition(text: string): Promise<ParsedFamily[]> {
  parserReady ??= ensurePrometheusParser();
  await parserReady;
  return parsePrometheusText(text);
}

/** Flat counters from the body of GET /metrics: JSON as is, Prometheus text through {@link parseExposition}. */
export async function flatMetrics(fn: FunctionName, body: unknown): Promise<Record<string, number>> {
  if (typeof body !== "string") return body as Record<string, number>;
  const out: Record<string, number> = {};
  const add = (key: string, value: number) => (out[key] = (out[key] ?? 0) + value);
  const cacheKey = { credspec: "credSpecCache", access: "accessCache" } as Record<string, string>;
  for (const sample of (await parseExposition(body)).flatMap((family) => family.samples)) {
    const { labels } = sample;
    const value = Number(sample.value);
    switch (sample.name) {
      case "gmsa_webhooks_reviews_total":
        if (labels["function"] !== fn) break;
        add(`${fn}_reviews_total`, value);
        add(labels["decision"] === "allowed" ? `${fn}_allowed_total` : `${fn}_denied_${labels["code"]}_total`, value);
        break;
      case "gmsa_webhooks_exec_plugin_runs_total":
        add(`execRuns_${labels["outcome"]}`, value);
        break;
      case "gmsa_webhooks_cache_requests_total":
        add(`${cacheKey[labels["cache"] ?? ""]}_${labels["result"] === "hit" ? "hits" : "misses"}`, value);
        break;
      case "gmsa_webhooks_cache_entries":
        add(`${cacheKey[labels["cache"] ?? ""]}_size`, value);
        break;
    }
  }
  return out;
}
