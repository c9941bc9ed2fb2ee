import type { FunctionName } from "../shared/config/index.ts";
import type { LogLevel } from "../shared/log.ts";

/** A runtime's metrics: what each review is recorded in, and what GET /metrics answers. */
export interface AppMetrics {
  /**
   * Told of every review's outcome once, after the reply is built; must be cheap. `code`: the denial's `status.code`;
   * `operation`: the review's; `durationMs`: from the body read to the reply.
   */
  reviews: {
    record(fn: FunctionName, allowed: boolean, code: number | undefined, operation?: string, durationMs?: number): void;
  };
  exposition(): Promise<{ contentType: string; body: string }>;
  /**
   * The level of an allowed review's line: `debug` beside metrics that count the same facts (Prometheus; the line
   * costs a tenth of a review's CPU), `info` where the log lines are the metrics. Refusals are `warn` everywhere.
   */
  allowedLevel: LogLevel;
}

/**
 * The JSON /metrics of Workers, Lambda and Azure Functions (per isolate or execution environment; their logs carry
 * every review's facts): reviews by function and outcome, and `extra`'s nested counters (kube client caches, exec
 * plugin runs) flattened into `a_b_c` keys.
 */
export function createJsonMetrics(
  extra: () => object = () => ({}),
): AppMetrics & { snapshot(): Record<string, number> } {
  const counts = new Map<string, number>();
  const snapshot = () => ({ ...Object.fromEntries(counts), ...flattenCounters(extra()) });
  return {
    reviews: {
      record(fn, allowed, code) {
        for (const key of [`${fn}_reviews_total`, `${fn}_${allowed ? "allowed" : `denied_${code ?? 0}`}_total`]) {
          counts.set(key, (counts.get(key) ?? 0) + 1);
        }
      },
    },
    snapshot,
    allowedLevel: "info",
    exposition: () => Promise.resolve({ contentType: "application/json", body: JSON.stringify(snapshot()) }),
  };
}

function flattenCounters(value: object, prefix = ""): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, child] of Object.entries(value)) {
    const name = prefix === "" ? key : `${prefix}_${key}`;
    if (typeof child === "number") out[name] = child;
    else if (typeof child === "object" && child !== null) Object.assign(out, flattenCounters(child as object, name));
  }
  return out;
}
