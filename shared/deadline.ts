/**
 * Settles as `promise` does, or rejects with `onAbort()` once `signal` aborts, without cancelling the work (a shared
 * exec run keeps going for the next caller). With `graceTurn`, an abort waits one event-loop turn, so work that
 * honours the same signal rejects first, with an error that names what it waited for.
 */
export function awaitWithin<T>(promise: Promise<T>, signal: AbortSignal | undefined, onAbort: () => Error, options: { graceTurn?: boolean } = {}): Promise<T> {
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
