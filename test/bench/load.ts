/**
 * A closed-loop load generator: `concurrency` senders, each sending the same request again as soon as
 * the previous answer is read, over one keep-alive HTTPS connection per sender (undici Pool trusting
 * the cluster CA), until a request count or a duration is reached, whichever comes first.
 */
import { Pool } from "undici";
import { summarize, type Summary } from "./percentiles.ts";

/** One load run. */
export interface LoadOptions {
  /** Full URL, query included, POSTed to. */
  url: string;
  /** The same body for every request, or the body of the `index`-th timed request (warm-up requests get index 0). */
  body: string | ((index: number) => string);
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

/** Unexpected answers, and the first one described (clipped), for the report. */
export interface ErrorTally {
  errors: number;
  firstError?: string;
}

export function countError(tally: ErrorTally, description: string): void {
  tally.errors++;
  tally.firstError ??= description;
}

/** Adds `from`'s errors to `tally`, and its first error (after `prefix`) when `tally` has none yet. */
export function addErrors(tally: ErrorTally, from: ErrorTally, prefix = ""): void {
  tally.errors += from.errors;
  if (from.firstError !== undefined) tally.firstError ??= `${prefix}${from.firstError}`;
}

/** What a run measured; latencies in milliseconds. */
export interface LoadResult extends ErrorTally {
  concurrency: number;
  /** Untimed requests sent first. */
  warmupRequests: number;
  requests: number;
  durationMs: number;
  perSecond: number;
  latencyMs: Summary;
}

/** The result of `requests` timed requests over `durationMs`, the first `requests` of `samples` their latencies. */
export function loadResult(
  sent: Pick<LoadResult, "concurrency" | "warmupRequests"> & ErrorTally,
  samples: Float64Array,
  requests: number,
  durationMs: number,
): LoadResult {
  const latencyMs = summarize(samples.subarray(0, requests));
  return { ...sent, requests, durationMs, perSecond: (requests * 1000) / durationMs, latencyMs };
}

/** A keep-alive pool of `connections` to `origin`, trusting the CA `caPem` only. */
export function openPool(origin: string, caPem: string, connections: number): Pool {
  return new Pool(origin, { connections, pipelining: 1, keepAliveTimeout: 60_000, connect: { ca: caPem } });
}

/**
 * Calls `send` with 0, 1, 2, ... from `concurrency` senders, each taking the next index once its previous call is
 * done, until `count` calls are started or `more()` is false. Returns how many were started.
 */
export async function sendConcurrently(
  concurrency: number,
  count: number,
  send: (index: number) => Promise<void>,
  more = () => true,
): Promise<number> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count && more()) await send(next++);
    }),
  );
  return next;
}

/** Runs the load. Transport failures are counted as errors, not thrown. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const url = new URL(options.url);
  const pool = openPool(url.origin, options.caPem, options.concurrency);
  const path = `${url.pathname}${url.search}`;
  const headers = { "content-type": "application/json", ...options.headers };
  let tally: ErrorTally = { errors: 0 };
  const { body } = options;
  const bodyOf = typeof body === "function" ? body : () => body;
  const send = async (index = 0): Promise<void> => {
    try {
      const response = await pool.request({ path, method: "POST", headers, body: bodyOf(index) });
      const text = await response.body.text();
      if (!options.accept(response.statusCode, text))
        countError(tally, `HTTP ${response.statusCode}: ${text.slice(0, 300)}`);
    } catch (error) {
      countError(tally, describeError(error));
    }
  };

  try {
    const { concurrency } = options;
    const warmup = options.warmupRequests ?? DEFAULT_WARMUP_REQUESTS;
    const warmupRequests = await sendConcurrently(concurrency, warmup, () => send());
    tally = { errors: 0 };
    const samples = new Float64Array(options.maxRequests);
    const started = performance.now();
    const end = started + options.maxDurationMs;
    const timed = async (index: number) => {
      const sent = performance.now();
      await send(index);
      samples[index] = performance.now() - sent;
    };
    const issued = await sendConcurrently(concurrency, options.maxRequests, timed, () => performance.now() < end);
    return loadResult({ concurrency, warmupRequests, ...tally }, samples, issued, performance.now() - started);
  } finally {
    await pool.close();
  }
}
