export interface DeadlineOptions {
  /** Used when the API server sends no `?timeout=` (Kubernetes' default webhook timeout is 10 s). */
  defaultTimeoutMs: number;
}

/** Kubernetes caps a webhook's `timeoutSeconds` at 30; a longer `?timeout=` is not the API server's. */
export const MAX_WEBHOOK_TIMEOUT_MS = 30_000;

const DURATION_PART = /(\d+(?:\.\d+)?)(ms|s|m)/g;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000 };

/** A review's deadline: `signal` aborts when its time is up; `clear` once the review is answered. */
export interface Deadline {
  signal: AbortSignal;
  clear(): void;
}

/**
 * The API server appends `?timeout=<duration>` to the webhook URL (its `timeoutSeconds`). We answer before it
 * gives up: the budget is the timeout (at most 30 s) less a margin (a fifth, at most one second) for the reply
 * to travel. Returns the function that starts one review's deadline from its `?timeout=` value.
 * @throws TypeError when `defaultTimeoutMs` is not positive.
 */
export function createDeadlines(options: DeadlineOptions): (timeout: string | undefined) => Deadline {
  if (!(options.defaultTimeoutMs > 0)) throw new TypeError("defaultTimeoutMs must be a positive number");
  return (timeout) => {
    // Clamped: timers fire at once on delays past 2^31 - 1 ms.
    const timeoutMs = Math.min(parseGoDuration(timeout) ?? options.defaultTimeoutMs, MAX_WEBHOOK_TIMEOUT_MS);
    // Not AbortSignal.timeout: its timer cannot be cleared, so every answered review would keep a live timer
    // and signal for up to 29 s and then build a DOMException nobody reads (test/bench/RESULTS.md).
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new DOMException("the review's deadline passed", "TimeoutError")),
      reviewBudgetMs(timeoutMs),
    );
    return { signal: controller.signal, clear: () => clearTimeout(timer) };
  };
}

/** The time a review may take, in ms, for a webhook timeout of `timeoutMs`. */
export function reviewBudgetMs(timeoutMs: number): number {
  return Math.max(50, timeoutMs - Math.min(1000, timeoutMs / 5));
}

/** Parses Go durations as the API server prints them ("10s", "1m30s", "500ms"); undefined when absent or odd. */
export function parseGoDuration(text: string | undefined): number | undefined {
  if (text === undefined || text.length > 32) return undefined;
  let total = 0;
  let consumed = 0;
  for (const match of text.matchAll(DURATION_PART)) {
    if (match.index !== consumed) return undefined;
    total += Number(match[1]) * (UNIT_MS[match[2] ?? ""] ?? 0);
    consumed += match[0].length;
  }
  return consumed === text.length && total > 0 ? total : undefined;
}
