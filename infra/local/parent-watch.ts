/**
 * Stops `npm run dev` when the npm that started it is gone. npm does not always pass a signal on: a SIGTERM to
 * npm's pid ends npm and leaves `node infra/local/dev.ts` running, reparented, with the cluster and the node lock.
 * Linux has no portable parent-death signal for Node, so the parent pid is polled.
 */

/**
 * Calls `onGone` once when this process's parent changes (it died and the process was reparented).
 * @param intervalMs how often to look, 500 ms by default; the timer is unref'd and never keeps the process alive.
 * @returns a function that stops watching.
 */
export function watchParent(onGone: () => void, intervalMs = 500): () => void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onGone();
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
