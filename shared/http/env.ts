/** The one Hono Env of the app. `Bindings` are the platform's: only an adapter's own middleware reads them. */
export interface AppEnv {
  Bindings: object;
  Variables: {
    /** Aborts when the review's time is up (reviewDeadline, shared/http/deadline.ts). */
    signal: AbortSignal;
  };
}
