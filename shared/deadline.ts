/**
 * A review's deadline: the budget the API server's `?timeout=` leaves, as `c.var.signal` ({@link reviewDeadline}),
 * and waiting for work no longer than a signal allows ({@link awaitWithin}, {@link sleep}).
 */
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./http/env.ts";

/** The API server's default webhook timeout (`timeoutSeconds` unset): used when a request has no `?timeout=`. */
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;

/** Kubernetes caps a webhook's `timeoutSeconds` at 30; a longer `?timeout=` is not the API server's. */
const MAX_WEBHOOK_TIMEOUT_MS = 30_000;

/** A Go duration of minutes, seconds and milliseconds, as the API server prints `timeoutSeconds` ("10s", "1m30s", "500ms"). */
const GO_DURATION = /^(?:(\d+(?:\.\d+)?)m(?!s))?(?:(\d+(?:\.\d+)?)s)?(?:(\d+(?:\.\d+)?)ms)?$/;

/**
 * Middleware of the review routes: `c.var.signal` aborts, from before the body is read, when the review's budget of the
 * `?timeout=<duration>` the API server appends (its `timeoutSeconds`; absent, zero or odd: its default) is up: the
 * timeout less a fifth, at most one second, for the reply to travel, and at least 50 ms.
 */
export function reviewDeadline(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const timeout = c.req.query("timeout");
    const match = timeout === undefined || timeout.length > 32 ? null : GO_DURATION.exec(timeout);
    const [minutes = 0, seconds = 0, ms = 0] = match?.slice(1).map((part) => Number(part ?? 0)) ?? [];
    // Clamped: timers fire at once on delays past 2^31 - 1 ms.
    const timeoutMs = Math.min(
      minutes * 60_000 + seconds * 1000 + ms || DEFAULT_WEBHOOK_TIMEOUT_MS,
      MAX_WEBHOOK_TIMEOUT_MS,
    );
    const budgetMs = Math.max(50, timeoutMs - Math.min(1000, timeoutMs / 5));
    // Not AbortSignal.timeout: its timer cannot be cleared and would outlive each answered review by up to 29 s.
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new DOMException("the review's deadline passed", "TimeoutError")),
      budgetMs,
    );
    c.set("signal", controller.signal);
    try {
      await next();
    } finally {
      clearTimeout(timer);
    }
  };
}

/**
 * Settles as `promise` does, or rejects with `onAbort()` once `signal` aborts, without cancelling the work (a shared
 * exec run keeps going for the next caller). With `graceTurn`, an abort waits one event-loop turn, so work that
 * honours the same signal rejects first, with an error that names what it waited for.
 */
export function awaitWithin<T>(
  promise: Promise<T>,
  signal: AbortSignal | undefined,
  onAbort: () => Error,
  options: { graceTurn?: boolean } = {},
): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) {
    // The abandoned promise may still reject later; nobody else may be listening.
    promise.catch(() => undefined);
    return Promise.reject(onAbort());
  }
  let abort = (): void => undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    abort = () => {
      if (options.graceTurn === true) timer = setTimeout(() => reject(onAbort()), 0);
      else reject(onAbort());
    };
    signal.addEventListener("abort", abort, { once: true });
  });
  return Promise.race([promise, aborted]).finally(() => {
    signal.removeEventListener("abort", abort);
    clearTimeout(timer);
  });
}

/** Waits `ms` milliseconds; resolves `false` early when `signal` aborts, `true` otherwise. */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted === true) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (completed: boolean): void => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      resolve(completed);
    };
    const onAbort = (): void => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
