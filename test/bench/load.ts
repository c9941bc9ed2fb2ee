/**
 * A closed-loop load generator: `concurrency` senders, each sending the same request again as soon as
 * the previous answer is read, over one keep-alive HTTPS connection per sender (undici Pool trusting
 * the cluster CA), until a request count or a duration is reached, whichever comes first.
 */
import { Pool } from "undici";
import { summarize, type Summary } from "./percentiles.ts";

/** One load run. */
export interface LoadOptions {
  /** Full URL, query included. */
  url: string;
  method?: "POST" | "GET";
  /** The same body for every request, or the body of the `index`-th timed request (warm-up requests get index 0). */
  body?: string | ((index: number) => string);
  headers?: Record<string, string>;
  /** PEM of the CA to trust (and nothing else). */
  caPem: string;
  concurrency: number;
  /** Stop after this many timed requests... */
  maxRequests: number;
  /** ...or after this long, in ms, whichever comes first. */
  maxDurationMs: number;
  /**
   * Untimed requests first (new connections' TLS handshakes, JIT); default 1,000, so a JIT-compiled server is measured
   * in its steady state as a compiled one is (a few hundred reviews leave V8 still optimizing).
   */
  warmupRequests?: number;
  /** True when an answer is the expected one; others count as errors. */
  accept: (status: number, body: string) => boolean;
}

const DEFAULT_WARMUP_REQUESTS = 1_000;

export const describeError = (error: unknown) =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);

/** What a run measured; latencies in milliseconds. */
export interface LoadResult {
  concurrency: number;
  /** Untimed requests sent first. */
  warmupRequests: number;
  requests: number;
  errors: number;
  /** The first unexpected answer, clipped, for the report. */
  firstError?: string;
  durationMs: number;
  perSecond: number;
  latencyMs: Summary;
}

/** Runs the load. Transport failures are counted as errors, not thrown. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const url = new URL(options.url);
  const pool = new Pool(url.origin, {
    connections: options.concurrency,
    pipelining: 1,
    keepAliveTimeout: 60_000,
    connect: { ca: options.caPem },
  });
  const path = `${url.pathname}${url.search}`;
  const headers = { "content-type": "application/json", ...options.headers };
  let errors = 0;
  let firstError: string | undefined;
  const { body } = options;
  const bodyOf = typeof body === "function" ? body : () => body ?? null;
  const send = async (index = 0): Promise<void> => {
    try {
      const response = await pool.request({ path, method: options.method ?? "POST", headers, body: bodyOf(index) });
      const text = await response.body.text();
      if (!options.accept(response.statusCode, text)) {
        errors++;
        firstError ??= `HTTP ${response.statusCode}: ${text.slice(0, 300)}`;
      }
    } catch (error) {
      errors++;
      firstError ??= describeError(error);
    }
  };

  try {
    const warmup = options.warmupRequests ?? DEFAULT_WARMUP_REQUESTS;
    let warmed = 0;
    await Promise.all(
      Array.from({ length: options.concurrency }, async () => {
        while (warmed < warmup) {
          warmed++;
          await send();
        }
      }),
    );
    errors = 0;
    firstError = undefined;

    const samples = new Float64Array(options.maxRequests);
    let issued = 0;
    const started = performance.now();
    const end = started + options.maxDurationMs;
    await Promise.all(
      Array.from({ length: options.concurrency }, async () => {
        while (issued < options.maxRequests && performance.now() < end) {
          const index = issued++;
          const sent = performance.now();
          await send(index);
          samples[index] = performance.now() - sent;
        }
      }),
    );
    const durationMs = performance.now() - started;
    return {
      concurrency: options.concurrency,
      warmupRequests: warmed,
      requests: issued,
      errors,
      ...(firstError === undefined ? {} : { firstError }),
      durationMs,
      perSecond: (issued * 1000) / durationMs,
      latencyMs: summarize(samples.subarray(0, issued)),
    };
  } finally {
    await pool.close();
  }
}
