/** Waiting that always ends by the caller's deadline, whatever the awaited work does. */

/**
 * Resolves or rejects as `promise` does, or rejects with `onAbort()` as soon as `signal` aborts (at once if it
 * already has). The work behind `promise` is not cancelled: a shared exec run keeps going for the next caller.
 */
export function awaitWithin<T>(promise: Promise<T>, signal: AbortSignal | undefined, onAbort: () => Error): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) {
    // The abandoned promise may still reject later; nobody else may be listening.
    promise.catch(() => undefined);
    return Promise.reject(onAbort());
  }
  let abort = (): void => undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    abort = () => reject(onAbort());
    signal.addEventListener("abort", abort, { once: true });
  });
  return Promise.race([promise, aborted]).finally(() => signal.removeEventListener("abort", abort));
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
