import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./env.ts";

/** The API server's default webhook timeout (`timeoutSeconds` unset): used when a request has no `?timeout=`. */
const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;

/** Kubernetes caps a webhook's `timeoutSeconds` at 30; a longer `?timeout=` is not the API server's. */
export const MAX_WEBHOOK_TIMEOUT_MS = 30_000;

/** A Go duration of minutes, seconds and milliseconds, as the API server prints `timeoutSeconds` ("10s", "1m30s", "500ms"). */
const GO_DURATION = /^(?:(\d+(?:\.\d+)?)m(?!s))?(?:(\d+(?:\.\d+)?)s)?(?:(\d+(?:\.\d+)?)ms)?$/;

/**
 * A review's deadline from the `?timeout=<duration>` the API server appends (its `timeoutSeconds`): `signal` aborts
 * when the {@link reviewBudgetMs} is up; `clear` once the review is answered.
 */
export function startDeadline(timeout: string | undefined): { signal: AbortSignal; clear(): void } {
  // Clamped: timers fire at once on delays past 2^31 - 1 ms.
  const timeoutMs = Math.min(parseGoDuration(timeout) ?? DEFAULT_WEBHOOK_TIMEOUT_MS, MAX_WEBHOOK_TIMEOUT_MS);
  // Not AbortSignal.timeout: its timer cannot be cleared, so every answered review would keep a live timer for up to 29 s.
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException("the review's deadline passed", "TimeoutError")), reviewBudgetMs(timeoutMs));
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}

/** Middleware of the review routes: the review's deadline as `c.var.signal`, started before the body is read. */
export function reviewDeadline(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const deadline = startDeadline(c.req.query("timeout"));
    c.set("signal", deadline.signal);
    try {
      await next();
    } finally {
      deadline.clear();
    }
  };
}

/** The time a review may take, in ms: the webhook timeout less a fifth, at most one second, for the reply to travel. */
export function reviewBudgetMs(timeoutMs: number): number {
  return Math.max(50, timeoutMs - Math.min(1000, timeoutMs / 5));
}

/** A {@link GO_DURATION} in ms; undefined when absent, zero or odd. */
export function parseGoDuration(text: string | undefined): number | undefined {
  const match = text === undefined || text.length > 32 ? null : GO_DURATION.exec(text);
  const [minutes = 0, seconds = 0, ms = 0] = match?.slice(1).map((part) => Number(part ?? 0)) ?? [];
  const total = minutes * 60_000 + seconds * 1000 + ms;
  return total > 0 ? total : undefined;
}
